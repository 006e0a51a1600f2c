/**
 * Finding the trigger phrase (`@agent` by default) in Markdown the way a
 * reader sees it: a mention in prose counts; code, quotes of someone else's
 * request and HTML comments (invisible once rendered) do not.
 */

export interface TextSegment {
  text: string;
  /** False for fenced or inline code, quoted lines and HTML comments. */
  prose: boolean;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const QUOTE_LINE = /^ {0,3}>/;

/** Splits Markdown into prose and non-prose parts; joining every `text` gives the input back. */
export function splitProse(markdown: string): TextSegment[] {
  const segments: TextSegment[] = [];
  const push = (text: string, prose: boolean) => {
    if (text === "") return;
    const last = segments.at(-1);
    if (last && last.prose === prose) last.text += text;
    else segments.push({ text, prose });
  };

  let fence: { char: string; length: number } | null = null;
  let paragraph = "";
  const flushParagraph = () => {
    for (const part of splitInline(paragraph)) push(part.text, part.prose);
    paragraph = "";
  };

  for (const line of markdown.split(/(?<=\n)/)) {
    if (fence) {
      push(line, false);
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    // A backtick fence whose info string holds a backtick is inline code, not a fence (CommonMark).
    if (open?.[1] && !(open[1][0] === "`" && line.slice(open[0].length).includes("`"))) {
      flushParagraph();
      fence = { char: open[1][0] ?? "`", length: open[1].length };
      push(line, false);
    } else if (QUOTE_LINE.test(line)) {
      flushParagraph();
      push(line, false);
    } else {
      paragraph += line;
    }
  }
  flushParagraph();
  return segments;
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}(`+|~+)[ \t]*\r?\n?$/.exec(line);
  const run = match?.[1];
  return run !== undefined && run[0] === fence.char && run.length >= fence.length;
}

/** Inline code spans (a run of N backticks closed by exactly N) and HTML comments. */
function splitInline(text: string): TextSegment[] {
  const parts: TextSegment[] = [];
  let proseStart = 0;
  let index = 0;
  while (index < text.length) {
    const tick = text.indexOf("`", index);
    const comment = text.indexOf("<!--", index);
    const next = tick === -1 ? comment : comment === -1 ? tick : Math.min(tick, comment);
    if (next === -1) break;

    let end: number;
    if (next === comment) {
      const close = text.indexOf("-->", next + 4);
      // An unclosed comment hides the rest of the text once rendered.
      end = close === -1 ? text.length : close + 3;
    } else {
      const run = /^`+/.exec(text.slice(next))?.[0].length ?? 1;
      const closer = new RegExp(`(?<!\`)\`{${run}}(?!\`)`, "g");
      closer.lastIndex = next + run;
      const close = closer.exec(text);
      if (!close) {
        // Unmatched backticks are literal text.
        index = next + run;
        continue;
      }
      end = close.index + run;
    }
    parts.push({ text: text.slice(proseStart, next), prose: true });
    parts.push({ text: text.slice(next, end), prose: false });
    proseStart = end;
    index = end;
  }
  parts.push({ text: text.slice(proseStart), prose: true });
  return parts.filter((part) => part.text !== "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The phrase as a whole word: not part of an e-mail address, a longer name
 * (`@agents`, `@agent-x`), a team (`@agent/team`) or a domain (`@agent.com`);
 * trailing punctuation (`@agent.`, `@agent,`) is fine.
 */
function phrasePattern(phrase: string): string {
  const words = phrase
    .trim()
    .split(/\s+/)
    .map((word) => escapeRegExp(word))
    .join("\\s+");
  const endsInWord = /\w$/.test(phrase.trim());
  return `(?<![\\w@./\\\\-])${words}${endsInWord ? "(?![\\w-]|[./]\\w)" : ""}`;
}

/** True when the phrase appears as a word, case-insensitively, in the prose of `text`. */
export function containsPhrase(text: string, phrase: string): boolean {
  if (phrase.trim() === "") return false;
  const pattern = new RegExp(phrasePattern(phrase), "i");
  return splitProse(text).some((segment) => segment.prose && pattern.test(segment.text));
}

/**
 * The instruction without the phrase: `@agent fix the test` -> `fix the test`,
 * `Hey @agent, look` -> `Hey look`. Occurrences in code or quotes stay.
 */
export function stripPhrase(text: string, phrase: string): string {
  if (phrase.trim() === "") return text.trim();
  const pattern = new RegExp(`${phrasePattern(phrase)}[,:;]?[ \\t]*`, "gi");
  return splitProse(text)
    .map((segment) => (segment.prose ? segment.text.replace(pattern, "") : segment.text))
    .join("")
    .trim();
}
