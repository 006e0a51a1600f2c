/**
 * Characters that render as nothing (or reorder what is shown): C0/C1
 * controls except tab and newline, soft hyphen, combining grapheme joiner,
 * Arabic letter mark, Hangul fillers, Khmer inherent vowels, Mongolian
 * selectors, zero-width and directional marks, bidi embeddings, overrides and
 * isolates, word joiner and invisible operators, deprecated format
 * characters, byte order mark, interlinear annotations, Unicode tags (a
 * whole hidden ASCII alphabet) and musical formatting controls.
 *
 * Untrusted text (a thread, a CI log, an MCP result) can hide words from the
 * person reading it with these, and split a token so that no secret rule
 * sees it whole.
 */
const INVISIBLE_SOURCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each character is matched on its own
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF0-\uFFFB\u{E0000}-\u{E007F}\u{1D173}-\u{1D17A}]/u
    .source;

/** Variation selectors; long runs of them encode hidden bytes ("emoji smuggling"). */
const VARIATION_SOURCE = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]+/u.source;

const INVISIBLE = new RegExp(INVISIBLE_SOURCE, "gu");
const VARIATION_SELECTORS = new RegExp(VARIATION_SOURCE, "gu");
/** One invisible character (for a single character's test). */
export const INVISIBLE_CHAR = new RegExp(`${INVISIBLE_SOURCE}|${VARIATION_SOURCE}`, "u");
const HIDDEN_RUN = new RegExp(`(?:${INVISIBLE_SOURCE}|${VARIATION_SOURCE})+`, "gu");

const LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
const EMOJI_BEFORE = /(?:\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|\uFE0F)$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** Whether `text` holds any character stripInvisible would judge. */
export function hasHidden(text: string): boolean {
  return INVISIBLE_CHAR.test(text);
}

/** A zero-width joiner between emoji builds one emoji (👩‍💻); it hides nothing there. */
function joinsEmoji(char: string, offset: number, whole: string): boolean {
  return (
    char === "\u200D" &&
    EMOJI_BEFORE.test(whole.slice(Math.max(0, offset - 2), offset)) &&
    EMOJI_AFTER.test(whole.slice(offset + 1, offset + 3))
  );
}

/** One text or emoji presentation selector after a visible character (❤️) is ordinary. */
function presentsEmoji(run: string, offset: number, whole: string): boolean {
  return (
    (run === "\uFE0E" || run === "\uFE0F") && offset > 0 && !/\s/.test(whole[offset - 1] ?? " ")
  );
}

/** Removes invisible characters; line and paragraph separators become newlines. */
export function stripInvisible(text: string): string {
  return text
    .replace(LINE_BREAKS, "\n")
    .replace(INVISIBLE, (char, offset: number, whole: string) =>
      joinsEmoji(char, offset, whole) ? char : "",
    )
    .replace(VARIATION_SELECTORS, (run, offset: number, whole: string) =>
      presentsEmoji(run, offset, whole) ? run : "",
    );
}

/**
 * Output that is data (a command's, an MCP server's) keeps a visible trace
 * of what was hidden in it, so the model can tell a test failed on a
 * zero-width space without the characters themselves reaching it: each run
 * becomes `[hidden: U+200B]`, or a count when the run is long (a smuggled
 * message in Unicode tags).
 */
export function markInvisible(text: string): string {
  if (!hasHidden(text)) return text;
  return text
    .replace(LINE_BREAKS, "\n")
    .replace(HIDDEN_RUN, (run, offset: number, whole: string) => {
      if (joinsEmoji(run, offset, whole) || presentsEmoji(run, offset, whole)) return run;
      const points = [...run].map(
        (char) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`,
      );
      return points.length <= 3
        ? `[hidden: ${points.join(" ")}]`
        : `[hidden: ${points.length} invisible characters]`;
    });
}

/**
 * The text with every invisible character left out, and where each kept
 * character stood in the original, so a secret split by zero-width
 * characters is found whole and redacted with what split it.
 */
export function visibleProjection(text: string): { text: string; offsets: Int32Array } {
  const offsets = new Int32Array(text.length + 1);
  const parts: string[] = [];
  let from = 0;
  let kept = 0;
  const keep = (end: number) => {
    parts.push(text.slice(from, end));
    for (let i = from; i < end; i++) offsets[kept++] = i;
  };
  for (const run of text.matchAll(HIDDEN_RUN)) {
    keep(run.index);
    from = run.index + run[0].length;
  }
  keep(text.length);
  offsets[kept] = text.length;
  return { text: parts.join(""), offsets: offsets.subarray(0, kept + 1) };
}
