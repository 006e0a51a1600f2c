/**
 * Removes Markdown and HTML that GitHub renders as nothing: comments, hidden
 * elements, attributes, link titles, image alt text and unused link reference
 * definitions (`[//]: # (note)`). Code (fenced blocks and inline spans) is
 * kept verbatim, because there a reader sees the text as written.
 *
 * Deciding what is code is the risky part: calling prose "code" would let a
 * hidden comment through. So wherever this scanner and GitHub could disagree
 * it chooses prose: unclosed fences, fences inside lists, quotes or HTML
 * blocks, and inline spans that would have to cross a line.
 */

interface Piece {
  text: string;
  code: boolean;
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const HTML_BLOCK_START = /^ {0,3}<[A-Za-z/!?]/;
const BLANK_LINE = /^[ \t]*$/;

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
/** Attributes whose value a reader sees (or follows); every other attribute is dropped. */
const KEPT_ATTRIBUTES = new Set([
  "href",
  "src",
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

/** What to do with the `<` at `at`: how far to skip and what to write instead. */
function markupAt(text: string, at: number): { end: number; output: string } | undefined {
  if (text.startsWith("<!--", at)) {
    // `<!-->` and `<!--->` are complete (empty) comments to an HTML parser.
    const empty = /^<!---?>/.exec(text.slice(at, at + 6));
    return { end: empty ? at + empty[0].length : indexAfter(text, "-->", at + 4), output: "" };
  }
  if (text.startsWith("<![CDATA[", at)) return { end: indexAfter(text, "]]>", at), output: "" };
  // Processing instructions and declarations are bogus comments to a browser.
  if (text.startsWith("<?", at)) {
    const close = text.indexOf("?>", at + 2);
    return { end: close < 0 ? indexAfter(text, ">", at) : close + 2, output: "" };
  }
  if (/^<![A-Za-z]/.test(text.slice(at, at + 3)))
    return { end: indexAfter(text, ">", at), output: "" };

  AUTOLINK.lastIndex = at;
  const autolink = AUTOLINK.exec(text);
  if (autolink) return { end: at + autolink[0].length, output: autolink[0] };

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

interface Fence {
  indent: number;
  char: string;
  length: number;
}

function openFence(line: string): Fence | undefined {
  const match = FENCE_OPEN.exec(line);
  const run = match?.[2];
  if (!match || !run) return undefined;
  // A backtick fence whose info string holds a backtick is not a fence (CommonMark).
  if (run[0] === "`" && (match[3] ?? "").includes("`")) return undefined;
  return { indent: match[1]?.length ?? 0, char: run[0] ?? "`", length: run.length };
}

/**
 * End of the fenced block starting at `start`, or undefined when it should
 * be read as prose: never closed, or a line less indented than an indented
 * fence (which would end the list item holding it on GitHub).
 */
function fencedBlockEnd(text: string, start: number, fence: Fence): number | undefined {
  let lineStart = text.indexOf("\n", start);
  while (lineStart >= 0) {
    lineStart += 1;
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
    if (close && close[0] === fence.char && close.length >= fence.length) return lineEnd;
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    if (fence.indent > 0 && indent < fence.indent && !BLANK_LINE.test(line)) return undefined;
    lineStart = newline;
  }
  return undefined;
}

/** The inline code span opening at `at`, kept on one line (see the file comment). */
function codeSpanEnd(text: string, at: number): number | undefined {
  const runLength = (from: number) => {
    let end = from;
    while (text[end] === "`") end += 1;
    return end - from;
  };
  const run = runLength(at);
  const newline = text.indexOf("\n", at);
  const lineEnd = newline < 0 ? text.length : newline;
  let from = at + run;
  for (;;) {
    const tick = text.indexOf("`", from);
    if (tick < 0 || tick >= lineEnd) return undefined;
    const length = runLength(tick);
    if (length === run) return tick + length;
    from = tick + length;
  }
}

/** Splits the text into code and prose, with hidden markup already removed from the prose. */
function scan(text: string): Piece[] {
  const pieces: Piece[] = [];
  let prose = "";
  const flush = () => {
    if (prose !== "") pieces.push({ text: prose, code: false });
    prose = "";
  };
  let htmlBlock = false;
  // Once a backtick fails to pair on its line, GitHub may pair it further on, so the
  // rest of the paragraph gets no code spans (prose is the safe reading).
  let unpairedTick = false;
  let i = 0;
  while (i < text.length) {
    if (i === 0 || text[i - 1] === "\n") {
      const newline = text.indexOf("\n", i);
      const line = text.slice(i, newline < 0 ? text.length : newline);
      if (BLANK_LINE.test(line)) {
        htmlBlock = false;
        unpairedTick = false;
      } else if (!htmlBlock) {
        const fence = openFence(line);
        const end = fence ? fencedBlockEnd(text, i, fence) : undefined;
        if (end !== undefined) {
          flush();
          pieces.push({ text: text.slice(i, end), code: true });
          i = end;
          continue;
        }
        htmlBlock = HTML_BLOCK_START.test(line);
      }
    }
    const char = text[i];
    if (char === "`" && !htmlBlock && !unpairedTick) {
      const end = codeSpanEnd(text, i);
      if (end !== undefined) {
        flush();
        pieces.push({ text: text.slice(i, end), code: true });
        i = end;
        continue;
      }
      unpairedTick = true;
    } else if (char === "\\" && text[i + 1] === "`") {
      prose += "\\`";
      i += 2;
      continue;
    } else if (char === "<") {
      const markup = markupAt(text, i);
      if (markup) {
        prose += markup.output;
        i = markup.end;
        continue;
      }
    }
    prose += char;
    i += 1;
  }
  flush();
  return pieces;
}

const LINK_TITLE =
  /\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)\s+(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\))\s*\)/g;
const IMAGE_ALT = /!\[(?:\\.|[^[\]\\]|\[[^[\]]*\])*\](?=[([])/g;
const REFERENCE_DEFINITION =
  /^( {0,3})\[((?:\\.|[^[\]\\]){1,999})\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|[^\s<>]\S*)(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\)))?[ \t]*$/gm;

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Link titles and image alt text show only on hover or when an image fails;
 * a reference definition never shows, so one nothing links to is dropped
 * whole and a used one loses its title.
 */
function stripHiddenMarkdown(prose: string): string {
  const used = new Map<string, number>();
  for (const match of prose.matchAll(/\[((?:\\.|[^[\]\\])+)\]/g)) {
    const label = normalizeLabel(match[1] ?? "");
    used.set(label, (used.get(label) ?? 0) + 1);
  }
  return prose
    .replace(REFERENCE_DEFINITION, (definition, indent: string, label: string, target: string) => {
      if (label.startsWith("^")) return definition;
      // The definition's own `[label]` is one of the counted uses.
      return (used.get(normalizeLabel(label)) ?? 0) > 1 ? `${indent}[${label}]: ${target}` : "";
    })
    .replace(LINK_TITLE, (_link, target: string) => `](${target})`)
    .replace(IMAGE_ALT, "![]");
}

// NUL never survives stripInvisible, so it cannot clash with text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks where code was taken out
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

export function stripHiddenMarkup(text: string): string {
  const pieces = scan(text);
  const code: string[] = [];
  const masked = pieces
    .map((piece) => {
      if (!piece.code) return piece.text;
      code.push(piece.text);
      return `\u0000${code.length - 1}\u0000`;
    })
    .join("");
  return stripHiddenMarkdown(masked).replace(
    PLACEHOLDER,
    (_match, index: string) => code[Number(index)] ?? "",
  );
}
