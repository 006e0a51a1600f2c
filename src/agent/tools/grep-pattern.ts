import { ToolError } from "./define-tool.js";
import { parseSearchPattern } from "./grep-regex.js";
import type { ClassName, SetMember, Token } from "./grep-tokens.js";

/** A grep_search pattern, written for both engines that may run it. */
export interface SearchPattern {
  /** For `git grep -E` (glibc POSIX extended, with its \b \< \> extensions). */
  posix: string;
  /** For the walk outside a git repository. */
  js: RegExp;
  ignoreCase: boolean;
}

/**
 * Models write Perl-style patterns; git grep -E takes \d, \t and [\s=] as
 * plain letters, which turned real matches into "No matches". Each construct
 * is translated to what the engine means by it, or refused (grep-regex.ts).
 */
export function compileSearchPattern(pattern: string): SearchPattern {
  const { tokens, ignoreCase } = parseSearchPattern(pattern);
  const hasBackrefs = tokens.some((t) => t.kind === "backref");
  const posix = tokens.map((t) => posixToken(t, pattern, hasBackrefs)).join("");
  let js: RegExp;
  try {
    js = new RegExp(tokens.map(jsToken).join(""), ignoreCase ? "iu" : "u");
  } catch (error) {
    throw new ToolError(
      `grep_search cannot use the pattern /${pattern}/: ${(error as Error).message}.`,
    );
  }
  return { posix, js, ignoreCase };
}

interface ClassForms {
  /** Inside a bracket expression. */
  inner: string;
  /** A whole expression matching one character outside the class. */
  negated: string;
}

const POSIX_CLASSES: Readonly<Record<ClassName, ClassForms>> = {
  digit: { inner: "0-9", negated: "[^0-9]" },
  word: { inner: "[:alnum:]_", negated: "[^[:alnum:]_]" },
  space: { inner: "[:space:]", negated: "[^[:space:]]" },
  blank: { inner: "[:blank:]", negated: "[^[:blank:]]" },
  alpha: { inner: "[:alpha:]", negated: "[^[:alpha:]]" },
  alnum: { inner: "[:alnum:]", negated: "[^[:alnum:]]" },
  upper: { inner: "[:upper:]", negated: "[^[:upper:]]" },
  lower: { inner: "[:lower:]", negated: "[^[:lower:]]" },
  xdigit: { inner: "[:xdigit:]", negated: "[^[:xdigit:]]" },
  punct: { inner: "[:punct:]", negated: "[^[:punct:]]" },
  cntrl: { inner: "[:cntrl:]", negated: "[^[:cntrl:]]" },
  print: { inner: "[:print:]", negated: "[^[:print:]]" },
  graph: { inner: "[:graph:]", negated: "[^[:graph:]]" },
};

const JS_CLASSES: Readonly<Record<ClassName, ClassForms>> = {
  digit: { inner: "0-9", negated: "[^0-9]" },
  word: { inner: "\\w", negated: "\\W" },
  space: { inner: "\\s", negated: "\\S" },
  blank: { inner: " \\t", negated: "[^ \\t]" },
  alpha: { inner: "\\p{L}", negated: "\\P{L}" },
  alnum: { inner: "\\p{L}\\p{N}", negated: "[^\\p{L}\\p{N}]" },
  upper: { inner: "\\p{Lu}", negated: "\\P{Lu}" },
  lower: { inner: "\\p{Ll}", negated: "\\P{Ll}" },
  xdigit: { inner: "0-9A-Fa-f", negated: "[^0-9A-Fa-f]" },
  punct: { inner: "!-\\/:-@\\[-`{-~", negated: "[^!-\\/:-@\\[-`{-~]" },
  cntrl: { inner: "\\x00-\\x1f\\x7f", negated: "[^\\x00-\\x1f\\x7f]" },
  print: { inner: "\\x20-\\x7e\\u{a0}-\\u{10ffff}", negated: "[^\\x20-\\x7e\\u{a0}-\\u{10ffff}]" },
  graph: { inner: "\\x21-\\x7e\\u{a1}-\\u{10ffff}", negated: "[^\\x21-\\x7e\\u{a1}-\\u{10ffff}]" },
};

function posixToken(token: Token, pattern: string, hasBackrefs: boolean): string {
  switch (token.kind) {
    case "char":
      return /[.[{()*+?^$|\\]/.test(token.char) ? `\\${token.char}` : token.char;
    case "any":
      return ".";
    case "class":
      return classText(POSIX_CLASSES[token.name], token.negated);
    case "set":
      return setText(
        token.negated,
        token.members,
        posixBracket,
        POSIX_CLASSES,
        "(",
        () => {
          throw new ToolError(
            `grep_search cannot use the pattern /${pattern}/: a negated class (\\S, \\W, \\D) inside [...] needs a group here, which would renumber the backreferences; write the set without it.`,
          );
        },
        hasBackrefs,
      );
    case "backref":
      return `\\${token.group}`;
    case "open":
      return "(";
    case "close":
      return ")";
    case "alt":
      return "|";
    case "quantifier":
      return quantifierText(token.min, token.max);
    case "anchor":
      // A CRLF file's lines reach grep with their \r, which `$` alone would not pass.
      return {
        start: "^",
        end: "[\r]?$",
        boundary: "\\b",
        "non-boundary": "\\B",
        "word-start": "\\<",
        "word-end": "\\>",
      }[token.anchor];
  }
}

function jsToken(token: Token): string {
  switch (token.kind) {
    case "char":
      return /[\\^$.*+?()[\]{}|/]/.test(token.char) ? `\\${token.char}` : token.char;
    case "any":
      return "[^\\n]";
    case "class":
      return classText(JS_CLASSES[token.name], token.negated);
    case "set":
      return setText(token.negated, token.members, jsBracket, JS_CLASSES, "(?:", () => "", false);
    case "backref":
      return `\\${token.group}`;
    case "open":
      return "(";
    case "close":
      return ")";
    case "alt":
      return "|";
    case "quantifier":
      return quantifierText(token.min, token.max);
    case "anchor":
      return {
        start: "^",
        end: "\\r?$",
        boundary: "\\b",
        "non-boundary": "\\B",
        "word-start": "\\b(?=\\w)",
        "word-end": "\\b(?<=\\w)",
      }[token.anchor];
  }
}

function classText(forms: ClassForms, negated: boolean): string {
  return negated ? forms.negated : `[${forms.inner}]`;
}

function quantifierText(min: number, max: number | null): string {
  if (min === 0 && max === null) return "*";
  if (min === 1 && max === null) return "+";
  if (min === 0 && max === 1) return "?";
  if (max === min) return `{${min}}`;
  return `{${min},${max ?? ""}}`;
}

type Bracket = (
  negated: boolean,
  members: SetMember[],
  classes: Readonly<Record<ClassName, ClassForms>>,
) => string;

/**
 * A set holding a negated class ([\S,]) is the union of that class and the
 * rest, which a bracket cannot say: it becomes a group of alternatives.
 */
function setText(
  negated: boolean,
  members: SetMember[],
  bracket: Bracket,
  classes: Readonly<Record<ClassName, ClassForms>>,
  group: string,
  refuseGroup: () => string,
  hasBackrefs: boolean,
): string {
  const negatedClasses = members.filter((m) => m.kind === "class" && m.negated);
  if (negatedClasses.length === 0) return bracket(negated, members, classes);
  const [only] = negatedClasses;
  if (members.length === 1 && only?.kind === "class") {
    // [^\S] is [[:space:]]; [\S] is \S.
    return negated ? `[${classes[only.name].inner}]` : classes[only.name].negated;
  }
  if (hasBackrefs) return refuseGroup();
  const rest = members.filter((m) => !(m.kind === "class" && m.negated));
  const alternatives = negatedClasses.map((m) =>
    m.kind === "class" ? classes[m.name].negated : "",
  );
  if (rest.length > 0) alternatives.push(bracket(false, rest, classes));
  return `${group}${alternatives.join("|")})`;
}

/** POSIX brackets have no escapes: "]" goes first, "-" last, and "^" anywhere but first. */
function posixBracket(
  negated: boolean,
  members: SetMember[],
  classes: Readonly<Record<ClassName, ClassForms>>,
): string {
  const chars = new Set(members.flatMap((m) => (m.kind === "char" ? [m.char] : [])));
  const endpoint = (c: string) => (/[\]\-^[]/.test(c) ? `[.${c}.]` : c);
  let body = "";
  for (const m of members) {
    if (m.kind === "range") body += `${endpoint(m.from)}-${endpoint(m.to)}`;
    else if (m.kind === "class") body += classes[m.name].inner;
    else if (!"]-^[".includes(m.char)) body += m.char;
  }
  if (
    !negated &&
    body === "" &&
    !chars.has("]") &&
    !chars.has("[") &&
    !chars.has("-") &&
    chars.has("^")
  ) {
    return "\\^";
  }
  const head = chars.has("]") ? "]" : "";
  const mark = (c: string) => (chars.has(c) ? c : "");
  // With nothing before it, "^" would negate the set; "-" is literal when first.
  const tail =
    negated || head !== "" || body !== ""
      ? `${mark("[")}${mark("^")}${mark("-")}`
      : `${mark("-")}${mark("[")}${mark("^")}`;
  return `[${negated ? "^" : ""}${head}${body}${tail}]`;
}

function jsBracket(
  negated: boolean,
  members: SetMember[],
  classes: Readonly<Record<ClassName, ClassForms>>,
): string {
  const escapeChar = (c: string) => (/[\\\]^[-]/.test(c) ? `\\${c}` : c);
  const body = members
    .map((m) =>
      m.kind === "range"
        ? `${escapeChar(m.from)}-${escapeChar(m.to)}`
        : m.kind === "class"
          ? classes[m.name].inner
          : escapeChar(m.char),
    )
    .join("");
  return `[${negated ? "^" : ""}${body}]`;
}
