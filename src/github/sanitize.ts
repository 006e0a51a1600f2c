import type { Redactor } from "../agent/redact.js";
import { stripHiddenMarkup } from "./sanitize-markup.js";

/**
 * Text from issues and comments reaches the model as data, and data must not
 * carry what a maintainer reading the thread on GitHub cannot see: invisible
 * and bidi characters, HTML comments (also inside table cells), hidden
 * elements and attributes, link targets and titles, image alt text.
 * `sanitizeUntrusted` removes those (keeping visible text, code blocks and
 * newlines, and noting where a link or image was) and redacts secrets last,
 * so a token split by zero-width characters is rejoined before it is
 * recognised.
 */
export function sanitizeUntrusted(text: string, redact: Redactor): string {
  return redact(stripHiddenMarkup(stripInvisibleEntities(stripInvisible(text))));
}

const LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;

/**
 * Characters that render as nothing (or reorder what is shown): C0/C1
 * controls except tab and newline, soft hyphen, combining grapheme joiner,
 * Arabic letter mark, Hangul fillers, Khmer inherent vowels, Mongolian
 * selectors, zero-width and directional marks, bidi embeddings, overrides and
 * isolates, word joiner and invisible operators, deprecated format
 * characters, byte order mark, interlinear annotations, Unicode tags (a
 * whole hidden ASCII alphabet) and musical formatting controls.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each character is removed on its own
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF0-\uFFFB\u{E0000}-\u{E007F}\u{1D173}-\u{1D17A}]/gu;

/** Variation selectors; long runs of them encode hidden bytes ("emoji smuggling"). */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]+/gu;

const EMOJI_BEFORE = /(?:\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|\uFE0F)$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

const INVISIBLE_CHAR = new RegExp(`${INVISIBLE.source}|${VARIATION_SELECTORS.source}`, "u");

/** Removes invisible characters; line and paragraph separators become newlines. */
export function stripInvisible(text: string): string {
  return (
    text
      .replace(LINE_BREAKS, "\n")
      .replace(INVISIBLE, (char, offset: number, whole: string) =>
        // A zero-width joiner between emoji builds one emoji (👩‍💻); it hides nothing there.
        char === "\u200D" &&
        EMOJI_BEFORE.test(whole.slice(Math.max(0, offset - 2), offset)) &&
        EMOJI_AFTER.test(whole.slice(offset + 1, offset + 3))
          ? char
          : "",
      )
      // One text or emoji presentation selector after a visible character (❤️) is
      // ordinary; anything else is not.
      .replace(VARIATION_SELECTORS, (run, offset: number, whole: string) =>
        (run === "\uFE0E" || run === "\uFE0F") && offset > 0 && !/\s/.test(whole[offset - 1] ?? " ")
          ? run
          : "",
      )
  );
}

/** HTML names of invisible characters (they decode in rendered Markdown). */
const INVISIBLE_ENTITY_NAMES = new Set([
  "ZeroWidthSpace",
  "NegativeVeryThinSpace",
  "NegativeThinSpace",
  "NegativeMediumSpace",
  "NegativeThickSpace",
  "zwnj",
  "zwj",
  "lrm",
  "rlm",
  "shy",
  "NoBreak",
  "ApplyFunction",
  "af",
  "InvisibleTimes",
  "it",
  "InvisibleComma",
  "ic",
]);

const ENTITY = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

/**
 * Removes entity-encoded invisible characters (`&#8203;`, `&#xE0041;`,
 * `&zwj;`), which GitHub decodes into the very characters stripped above.
 * Entities for visible characters stay as written: they hide nothing. This
 * runs before code is told apart from prose, so an entity in code goes too:
 * rare there, and removing it is the safe side.
 */
export function stripInvisibleEntities(text: string): string {
  return text.replace(ENTITY, (entity, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return INVISIBLE_ENTITY_NAMES.has(name) ? "" : entity;
    const codePoint = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? "", 16);
    if (codePoint === 0 || codePoint > 0x10ffff) return "";
    const char = String.fromCodePoint(codePoint);
    return INVISIBLE_CHAR.test(char) ? "" : entity;
  });
}
