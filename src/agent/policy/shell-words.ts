import type { Node } from "web-tree-sitter";

/** One shell word: its value with quotes removed, or its source text when it expands at run time. */
export interface ShellWord {
  text: string;
  /** True when the value is only known when the command runs (variables, substitutions, braces). */
  dynamic: boolean;
}

const ANSI_C_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Brace expansion (`{a,b}`, `{1..3}`) turns one word into several, so its value is not one path. */
const BRACE_EXPANSION = /\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/** Backslash removal outside quotes: `l\s` runs `ls`, a backslash-newline vanishes. */
function unescapeBare(text: string): string {
  return text.replace(/\\(\n|[\s\S])/g, (_match, char: string) => (char === "\n" ? "" : char));
}

/** Inside double quotes a backslash only escapes `$`, backtick, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === "\n" ? "" : char));
}

function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|[\s\S])/g,
    (match, esc: string) => {
      const head = esc[0] ?? "";
      if (head === "x" || head === "u" || head === "U") {
        return String.fromCodePoint(Number.parseInt(esc.slice(1), 16));
      }
      if (/^[0-7]/.test(esc)) return String.fromCodePoint(Number.parseInt(esc, 8));
      if (head === "c") return String.fromCodePoint((esc.codePointAt(1) ?? 64) & 31);
      return ANSI_C_ESCAPES[esc] ?? match;
    },
  );
}

function readDoubleQuoted(node: Node): ShellWord {
  let text = "";
  let dynamic = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "string_content") {
      text += unescapeDoubleQuoted(child.text);
    } else {
      text += child.text;
      dynamic = true;
    }
  }
  return { text, dynamic };
}

function readConcatenation(node: Node): ShellWord {
  let text = "";
  let bare = "";
  let dynamic = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const part = readWord(child);
    text += part.text;
    dynamic ||= part.dynamic;
    // Quoted parts cannot open or close a brace expansion; stand them in with a letter.
    bare += child.type === "word" ? child.text : "q";
  }
  return { text, dynamic: dynamic || BRACE_EXPANSION.test(bare) };
}

export interface Redirect {
  /** The operator as written: `>`, `>>`, `&>`, `<`, `>&`, `<<`, `<<<`... */
  op: string;
  /** File name (quotes removed), fd number for duplications, delimiter for heredocs. */
  target: string;
  dynamic: boolean;
}

/** Reads an argument, command name or redirect target node as the value the shell would pass. */
export function readWord(node: Node): ShellWord {
  switch (node.type) {
    case "word":
      return { text: unescapeBare(node.text), dynamic: BRACE_EXPANSION.test(node.text) };
    case "number":
    case "variable_name":
      return { text: node.text, dynamic: false };
    case "raw_string":
      return { text: node.text.slice(1, -1), dynamic: false };
    case "ansi_c_string":
      return { text: decodeAnsiC(node.text.slice(2, -1)), dynamic: false };
    case "string":
      return readDoubleQuoted(node);
    case "concatenation":
      return readConcatenation(node);
    case "command_name": {
      const inner = node.namedChild(0);
      return inner ? readWord(inner) : { text: node.text, dynamic: false };
    }
    default:
      // Expansions, substitutions and anything the grammar adds later: unknown until run time.
      return { text: node.text, dynamic: true };
  }
}

/** An unescaped `*`, `?` or `[...]`: a word with one is a pattern the shell expands into file names. */
const GLOB = /[*?]|\[[^\]]+\]/;

/**
 * The word as a file-name pattern (`/etc/*`, `"$d"/*`) when it has glob
 * characters outside quotes, or undefined when the shell takes it as it is.
 */
export function readPattern(node: Node): ShellWord | undefined {
  const parts = node.type === "concatenation" ? node.namedChildren : [node];
  // Quoted parts are literal text; stand them (and expansions) in with a letter.
  const bare = parts.map((part) => (part?.type === "word" ? part.text : "q")).join("");
  return GLOB.test(bare.replace(/\\[\s\S]/g, "q")) ? readWord(node) : undefined;
}

/** `NAME=value` with the value read like a word. */
export function readAssignment(node: Node): string {
  const name = node.childForFieldName("name")?.text ?? "";
  const value = node.childForFieldName("value");
  return `${name}=${value ? readWord(value).text : ""}`;
}

export function readRedirect(node: Node): Redirect {
  if (node.type === "heredoc_redirect") {
    const start = node.children.find((child) => child?.type === "heredoc_start");
    return { op: "<<", target: start?.text ?? "", dynamic: false };
  }
  const op = node.children.find((child) => child && !child.isNamed)?.text ?? "";
  const destination =
    node.childForFieldName("destination") ??
    node.namedChildren.filter((child) => child?.type !== "file_descriptor").at(-1);
  const word = destination ? readWord(destination) : { text: "", dynamic: false };
  return { op, target: word.text, dynamic: word.dynamic };
}

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const FD = /^(\d+|-)$/;

/** The redirect creates or changes a file (not a duplication onto a descriptor). */
export function isOutput(redirect: Redirect): boolean {
  return OUTPUT_OPS.has(redirect.op) || (redirect.op === ">&" && !FD.test(redirect.target));
}

/** The redirect reads a file. */
export function isInput(redirect: Redirect): boolean {
  return (
    redirect.op === "<" ||
    redirect.op === "<>" ||
    (redirect.op === "<&" && !FD.test(redirect.target))
  );
}
