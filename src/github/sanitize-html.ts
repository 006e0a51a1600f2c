/**
 * Raw HTML in Markdown, as a browser would read it: comments, bogus comments
 * (CDATA, processing instructions, declarations) and hidden elements vanish
 * with their content; other tags keep only attributes a reader sees. Link and
 * image targets go (see sanitize-links.ts for the convention).
 */

import { IMAGE_NOTE } from "./sanitize-links.js";
import type { TableReader } from "./sanitize-table.js";

/** Elements whose content never shows in a rendered comment. */
const INVISIBLE_ELEMENTS = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "title",
  "head",
  "iframe",
  "object",
  "svg",
  "math",
]);
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);
/** Attributes whose value a reader sees; every other attribute is dropped. */
const KEPT_ATTRIBUTES = new Set([
  "open",
  "colspan",
  "rowspan",
  "width",
  "height",
  "align",
  "start",
]);
const HIDING_STYLE =
  /display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0*(?:\.0*)?\s*(?:;|!|$)|font-size\s*:\s*0*(?:\.0*)?[a-z%]*\s*(?:;|!|$)|(?:^|;)\s*(?:max-)?(?:height|width)\s*:\s*0|color\s*:\s*transparent|clip(?:-path)?\s*:|(?:left|top|text-indent)\s*:\s*-\d{3,}/i;

const TAG =
  /<([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s"'<>/=`]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/y;
const CLOSING_TAG = /<\/([A-Za-z][A-Za-z0-9-]*)[^>]*>/y;
const ATTRIBUTE = /([^\s"'<>/=`]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const AUTOLINK =
  /<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+)>/y;

interface Attribute {
  name: string;
  value: string | undefined;
}

function parseAttributes(source: string): Attribute[] {
  return [...source.matchAll(ATTRIBUTE)].map((match) => ({
    name: (match[1] ?? "").toLowerCase(),
    value: match[2] ?? match[3] ?? match[4],
  }));
}

function hides(name: string, attributes: readonly Attribute[]): boolean {
  if (INVISIBLE_ELEMENTS.has(name)) return true;
  return attributes.some(
    (attribute) =>
      attribute.name === "hidden" ||
      (attribute.name === "style" && HIDING_STYLE.test(attribute.value ?? "")) ||
      (name === "input" &&
        attribute.name === "type" &&
        attribute.value?.toLowerCase() === "hidden"),
  );
}

function keptTag(name: string, attributes: readonly Attribute[]): string {
  // An image shows only itself: its source, alt text and title are unseen.
  if (name === "img") return IMAGE_NOTE;
  // The mark sanitize-links.ts turns into the link's text and a note.
  if (name === "a" && attributes.some((attribute) => attribute.name === "href")) return "<a href>";
  const kept = attributes
    .filter((attribute) => KEPT_ATTRIBUTES.has(attribute.name))
    .map((attribute) =>
      attribute.value === undefined
        ? ` ${attribute.name}`
        : ` ${attribute.name}="${attribute.value.replace(/"/g, "&quot;")}"`,
    );
  return `<${name}${kept.join("")}>`;
}

/** Index just past the element opened before `from`, or the end of the text when it never closes. */
function elementEnd(text: string, name: string, from: number): number {
  const tags = new RegExp(`<(/?)${name}(?=[\\s/>])[^>]*>`, "gi");
  tags.lastIndex = from;
  let depth = 1;
  for (let match = tags.exec(text); match; match = tags.exec(text)) {
    depth += match[1] === "/" ? -1 : 1;
    if (depth === 0) return match.index + match[0].length;
  }
  return text.length;
}

function indexAfter(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from);
  return at < 0 ? text.length : at + marker.length;
}

export interface Markup {
  end: number;
  /** What the prose gets instead; empty when the markup hides what it holds. */
  output: string;
  /** An autolink's URL: its visible text, kept as written and read no further. */
  verbatim?: boolean;
}

/** Finds `marker` from positions given in increasing order, searching each stretch once. */
function markerFinder(text: string, marker: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found !== -1 && found < from) found = text.indexOf(marker, from);
    return found;
  };
}

/**
 * Reads the markup at each `<` of `text`, taken in order: how far to skip
 * and what to write instead. (Positions only grow, which keeps a text of
 * many unclosed comments linear.)
 */
export function markupReader(text: string, table: TableReader): (at: number) => Markup | undefined {
  const commentClose = markerFinder(text, "-->");
  const instructionClose = markerFinder(text, "?>");
  const commentEnd = (at: number): number => {
    // `<!-->` and `<!--->` are complete (empty) comments to an HTML parser.
    const empty = /^<!---?>/.exec(text.slice(at, at + 6));
    if (empty) return at + empty[0].length;
    // Only `-->` ends one here. A browser also ends one at `--!>`, but Markdown
    // and other HTML parsers run on to `-->`, and running on is the safe side.
    const close = commentClose(at + 4);
    return close < 0 ? table.unterminatedCommentEnd(at) : close + 3;
  };
  return (at) => {
    if (text.startsWith("<!--", at)) return { end: commentEnd(at), output: "" };
    if (text.startsWith("<![CDATA[", at)) return { end: indexAfter(text, "]]>", at), output: "" };
    // Processing instructions and declarations are bogus comments to a browser.
    if (text.startsWith("<?", at)) {
      const close = instructionClose(at + 2);
      return { end: close < 0 ? indexAfter(text, ">", at) : close + 2, output: "" };
    }
    if (/^<![A-Za-z]/.test(text.slice(at, at + 3))) {
      return { end: indexAfter(text, ">", at), output: "" };
    }
    return tagAt(text, at);
  };
}

/** An autolink or a tag at `at`. */
function tagAt(text: string, at: number): Markup | undefined {
  AUTOLINK.lastIndex = at;
  const autolink = AUTOLINK.exec(text);
  if (autolink) {
    return { end: at + autolink[0].length, output: autolink[0].slice(1, -1), verbatim: true };
  }

  CLOSING_TAG.lastIndex = at;
  const closing = CLOSING_TAG.exec(text);
  if (closing) return { end: at + closing[0].length, output: `</${closing[1]?.toLowerCase()}>` };

  TAG.lastIndex = at;
  const tag = TAG.exec(text);
  if (!tag) return undefined;
  const name = (tag[1] ?? "").toLowerCase();
  const attributes = parseAttributes(tag[2] ?? "");
  const end = at + tag[0].length;
  if (!hides(name, attributes)) return { end, output: keptTag(name, attributes) };
  return { end: VOID_ELEMENTS.has(name) ? end : elementEnd(text, name, end), output: "" };
}
