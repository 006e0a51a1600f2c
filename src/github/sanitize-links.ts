/**
 * Link and image targets. Text hides there from a reader: in a URL, in a
 * title shown only on hover, in alt text shown only when an image fails, in
 * a reference definition never shown at all. One convention, for Markdown
 * and HTML alike:
 *
 *   [text](url "title"), [text][ref], <a href="url">text</a>  ->  text (link removed)
 *   ![alt](url "title"), ![alt][ref], <img src alt title>     ->  (image removed)
 *   <https://x.y/path>                                        ->  https://x.y/path
 *
 * An autolink shows its URL, so the URL stays as plain text, like a bare URL
 * typed as text. Reference definitions are dropped; footnotes show, so stay.
 *
 * This reads prose whose code is masked and whose inline targets the scanner
 * has already taken out (leaving LINK_TARGET). Where the scanner read as
 * prose what GitHub may read as code (a span it could not place), or removed
 * markup GitHub may show as text, brackets can pair otherwise than on
 * GitHub. So an image whose `]` is uncertain runs to the next target, and a
 * target no bracket opens goes with everything from the paragraph's first
 * image on: alt text never comes through as link text.
 */

import { ESCAPABLE } from "./sanitize-link-target.js";

export const LINK_NOTE = "(link removed)";
export const IMAGE_NOTE = "(image removed)";
// stripInvisible removes both marks from the input, so they cannot clash with text.
/** Left by the scanner where it took out an inline target `(url "title")` after a `]`. */
export const LINK_TARGET = "\u0002";
/** Left by the scanner where markup it removed held an `![` GitHub may read as text. */
export const IMAGE_OPENER = "\u0001";

const TITLE = String.raw`(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\))`;
/** `[label]: url "title"`, also inside quotes and list items, with its line's markers. */
const REFERENCE_DEFINITION = new RegExp(
  String.raw`^((?:[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*)\[((?:\\.|[^[\]\\]){1,999})\]:` +
    String.raw`[ \t]*(?:\n(?:[ \t]*>)*)?[ \t]*(?:<[^<>\n]*>|[^\s<>]\S*)` +
    String.raw`(?:(?:[ \t]+|[ \t]*\n(?:[ \t]*>)*[ \t]*)${TITLE})?[ \t]*$`,
  "gm",
);
const PARAGRAPH_BREAK = /(\n[ \t]*\n)/;

/** Labels of reference definitions, matched as CommonMark matches them. */
interface Labels {
  has(label: string): boolean;
}

/** Whether a backslash at `at` escapes the character after it. */
function escapes(text: string, at: number): boolean {
  return text[at] === "\\" && ESCAPABLE.test(text[at + 1] ?? "");
}

/** `note` after `last` (the character before it), with a space when it follows text. */
function spaced(last: string | undefined, note: string): string {
  return last !== undefined && /\S/.test(last) ? ` ${note}` : note;
}

/** End of the `[label]` starting at `at`: no brackets inside, at most 999 characters. */
function labelEnd(text: string, at: number): number | undefined {
  for (let i = at + 1; i < text.length && i <= at + 1000; i += 1) {
    if (escapes(text, i)) i += 1;
    else if (text[i] === "[") return undefined;
    else if (text[i] === "]") return i + 1;
  }
  return undefined;
}

/** End of a target after the `]` at `close`: an inline one, or `[ref]` naming a definition. */
function targetEnd(text: string, close: number, labels: Labels): number | undefined {
  const after = close + 1;
  if (text[after] === LINK_TARGET) return after + 1;
  const end = text[after] === "[" ? labelEnd(text, after) : undefined;
  return end !== undefined && labels.has(text.slice(after + 1, end - 1)) ? end : undefined;
}

/** End of the link whose text runs from the `[` at `open` to the `]` at `close`, if it is one. */
function linkEnd(text: string, open: number, close: number, labels: Labels): number | undefined {
  const target = targetEnd(text, close, labels);
  if (target !== undefined) return target;
  const after = close + 1;
  const reference = text[after] === "[" ? labelEnd(text, after) : undefined;
  // `[text][ref]` naming no definition is no link; `[text][]` and `[text]` name their text.
  if (reference !== undefined && text.slice(after + 1, reference - 1).trim() !== "") {
    return undefined;
  }
  return labels.has(text.slice(open + 1, close)) ? (reference ?? after) : undefined;
}

/** The `]` closing each unescaped `[`, paired as GitHub pairs them. */
function bracketPairs(text: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (escapes(text, i)) i += 1;
    else if (text[i] === "[") open.push(i);
    else if (text[i] === "]") {
      const opener = open.pop();
      if (opener !== undefined) pairs.set(opener, i);
    }
  }
  return pairs;
}

interface Target {
  close: number;
  end: number;
}

/** Finds, for positions taken in order, the next `]` with a target after it. */
function targetFinder(text: string, labels: Labels): (from: number) => Target | undefined {
  let targets: Target[] | undefined;
  let next = 0;
  return (from) => {
    if (targets === undefined) {
      targets = [];
      for (let i = 0; i < text.length; i += 1) {
        const end = text[i] === "]" ? targetEnd(text, i, labels) : undefined;
        if (end !== undefined) targets.push({ close: i, end });
        if (escapes(text, i)) i += 1;
      }
    }
    while ((targets[next]?.close ?? Number.POSITIVE_INFINITY) <= from) next += 1;
    return targets[next];
  };
}

/**
 * End of the image whose opener (`![`, or IMAGE_OPENER) is at each position
 * taken in order. Where a backtick or removed markup stood between it and
 * the next target, brackets may pair otherwise on GitHub, so the image runs
 * to that target.
 */
function imageEnder(text: string, labels: Labels, pairs: ReadonlyMap<number, number>) {
  const nextTarget = targetFinder(text, labels);
  let tick = -2;
  const nextTick = (from: number): number => {
    if (tick < from) {
      const found = text.indexOf("`", from);
      tick = found < 0 ? Number.POSITIVE_INFINITY : found;
    }
    return tick;
  };
  return (at: number): number | undefined => {
    const close = text[at] === "!" ? pairs.get(at + 1) : undefined;
    const end = close === undefined ? undefined : linkEnd(text, at + 1, close, labels);
    if (end !== undefined) return end;
    const target = nextTarget(at);
    if (target === undefined) return undefined;
    return text[at] === IMAGE_OPENER || nextTick(at) < target.close ? target.end : undefined;
  };
}

/** Text built in parts: reading a string while appending to it would copy it each time. */
class Output {
  private readonly parts: string[] = [];
  /** Where the paragraph's first image (or possible one) began. */
  imageAt: number | undefined;

  push(text: string): void {
    if (text !== "") this.parts.push(text);
  }

  note(note: string): void {
    this.parts.push(spaced(this.parts.at(-1)?.at(-1), note));
  }

  markImage(): void {
    this.imageAt ??= this.parts.length;
  }

  /** Drops everything from the first image on. */
  dropFromImage(): void {
    if (this.imageAt !== undefined) this.parts.length = this.imageAt;
  }

  toString(): string {
    return this.parts.join("");
  }
}

/** Rewrites the links and images of one paragraph (links never cross a blank line). */
function rewriteParagraph(text: string, labels: Labels): string {
  const pairs = bracketPairs(text);
  const imageEnd = imageEnder(text, labels, pairs);
  const pending: Target[] = []; // links whose text is being copied, innermost last
  const out = new Output();
  // Jumps to `end`, and past the target of any pending link whose `]` that skips.
  const skipTo = (end: number): number => {
    let to = end;
    while ((pending.at(-1)?.close ?? Number.POSITIVE_INFINITY) < to) {
      to = Math.max(to, pending.pop()?.end ?? to);
    }
    return to;
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? "";
    const link = pending.at(-1);
    let end: number | undefined;
    if (link?.close === i) {
      pending.pop();
      out.note(LINK_NOTE);
      end = link.end;
    } else if (char === IMAGE_OPENER || (char === "!" && text[i + 1] === "[")) {
      out.markImage();
      end = imageEnd(i);
      if (end !== undefined) out.note(IMAGE_NOTE);
      else if (char === IMAGE_OPENER) end = i + 1; // the mark itself shows nothing
    } else if (char === "[") {
      const close = pairs.get(i);
      const target = close === undefined ? undefined : linkEnd(text, i, close, labels);
      if (close !== undefined && target !== undefined) pending.push({ close, end: target });
      end = target === undefined ? undefined : i + 1;
    } else if (char === "]" || char === LINK_TARGET) {
      // A target no bracket here opens: GitHub paired it with an opener this
      // reading did not see, maybe an image's, whose alt text runs back to it.
      end = char === "]" ? targetEnd(text, i, labels) : i + 1;
      if (end !== undefined) {
        out.dropFromImage();
        out.note(out.imageAt === undefined ? LINK_NOTE : IMAGE_NOTE);
      }
    }
    if (end === undefined) {
      const copied = escapes(text, i) ? text.slice(i, i + 2) : char;
      out.push(copied);
      end = i + copied.length;
    }
    i = skipTo(end);
  }
  return out.toString();
}

/** `<a href>` (a link's tag, as the scanner leaves it) and its `</a>`: the text stays, with a note. */
function rewriteHtmlLinks(prose: string): string {
  let open = 0;
  return prose.replace(/<a href>|<\/a>/g, (tag: string, offset: number) => {
    if (tag === "<a href>") {
      open += 1;
      return "";
    }
    if (open === 0) return tag;
    open -= 1;
    return spaced(prose[offset - 1], LINK_NOTE);
  });
}

/**
 * Removes link and image targets from prose, by the convention above.
 * `unmask` restores the code in a label, so that labels compare as written.
 */
export function stripLinks(prose: string, unmask: (text: string) => string): string {
  // Case folding as CommonMark's: upper then lower case folds "ß" and "SS" alike.
  const normalize = (label: string) =>
    unmask(label).trim().replace(/\s+/g, " ").toUpperCase().toLowerCase();
  const defined = new Set<string>();
  const labels: Labels = { has: (label) => label.length <= 999 && defined.has(normalize(label)) };
  const withoutDefinitions = prose.replace(
    REFERENCE_DEFINITION,
    (definition: string, markers: string, label: string) => {
      if (label.startsWith("^")) return definition; // a footnote, which shows
      defined.add(normalize(label));
      return markers.trimEnd();
    },
  );
  return rewriteHtmlLinks(withoutDefinitions)
    .split(PARAGRAPH_BREAK)
    .map((paragraph) => rewriteParagraph(paragraph, labels))
    .join("");
}
