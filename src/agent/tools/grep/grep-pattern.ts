import { ToolError } from "../define-tool.js";
import { parseSearchPattern } from "./grep-regex.js";
import { HORIZONTAL_SPACE, type SetMember, type Token } from "./grep-tokens.js";

/** A grep_search pattern, ready to test lines with. */
export interface SearchPattern {
  /** Tests one line (without its line ending). */
  regex: RegExp;
  ignoreCase: boolean;
  /**
   * Every matching line contains one of these (ASCII-lowercased when
   * ignoreCase), for skipping lines and files cheaply; null when nothing
   * is certain.
   */
  literals: string[] | null;
}

/**
 * Compiles a pattern into the one engine grep_search uses everywhere:
 * JavaScript's, with the u flag (code points, strict syntax) and the s flag
 * (`.` is any character of the line). Lines are tested one at a time, so
 * ^ and $ are a line's start and end.
 */
export function compileSearchPattern(pattern: string, caseInsensitive = false): SearchPattern {
  const parsed = parseSearchPattern(pattern);
  const ignoreCase = caseInsensitive || parsed.ignoreCase;
  const source = parsed.tokens.map(jsToken).join("");
  let regex: RegExp;
  try {
    regex = new RegExp(source, ignoreCase ? "isu" : "su");
  } catch (error) {
    throw new ToolError(
      `grep_search: the pattern /${pattern}/ is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}. Fix it and call grep_search again.`,
    );
  }
  return { regex, ignoreCase, literals: requiredLiterals(parsed.tokens, ignoreCase) };
}

const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
const SET_SYNTAX = new Set([..."\\]^[-"]);

/** A character as JavaScript reads it: printable ASCII as itself, the rest by code point. */
function charText(char: string, syntax: ReadonlySet<string>): string {
  if (syntax.has(char)) return `\\${char}`;
  const code = char.codePointAt(0) ?? 0;
  return code >= 0x20 && code < 0x7f ? char : `\\u{${code.toString(16)}}`;
}

function jsToken(token: Token): string {
  switch (token.kind) {
    case "char":
      return charText(token.char, SYNTAX);
    case "any":
      return ".";
    case "class":
      if (token.name === "h")
        return token.negated ? `[^${HORIZONTAL_SPACE}]` : `[${HORIZONTAL_SPACE}]`;
      return `\\${token.negated ? token.name.toUpperCase() : token.name}`;
    case "property":
      return token.text;
    case "set":
      return `[${token.negated ? "^" : ""}${token.members.map(setMember).join("")}]`;
    case "backref":
      return `\\${token.group}`;
    case "named-backref":
      return `\\k<${token.name}>`;
    case "open":
      return {
        capture: "(",
        plain: "(?:",
        named: `(?<${token.name ?? ""}>`,
        ahead: "(?=",
        "not-ahead": "(?!",
        behind: "(?<=",
        "not-behind": "(?<!",
      }[token.group];
    case "close":
      return ")";
    case "alt":
      return "|";
    case "quantifier":
      return quantifierText(token.min, token.max) + (token.lazy ? "?" : "");
    case "anchor":
      return {
        start: "^",
        end: "$",
        boundary: "\\b",
        "non-boundary": "\\B",
        "word-start": "\\b(?=\\w)",
        "word-end": "\\b(?<=\\w)",
      }[token.anchor];
  }
}

function setMember(member: SetMember): string {
  switch (member.kind) {
    case "char":
      return charText(member.char, SET_SYNTAX);
    case "range":
      return `${charText(member.from, SET_SYNTAX)}-${charText(member.to, SET_SYNTAX)}`;
    case "class":
      return member.name === "h"
        ? HORIZONTAL_SPACE
        : `\\${member.negated ? member.name.toUpperCase() : member.name}`;
    case "posix":
      return member.ranges;
    case "property":
      return member.text;
  }
}

function quantifierText(min: number, max: number | null): string {
  if (min === 0 && max === null) return "*";
  if (min === 1 && max === null) return "+";
  if (min === 0 && max === 1) return "?";
  if (max === min) return `{${min}}`;
  return `{${min},${max ?? ""}}`;
}

/**
 * Text every match must contain: for each top-level alternative, its
 * longest run of plain characters outside groups and not made optional by a
 * quantifier. Without case, only ASCII characters whose case JavaScript
 * folds to ASCII alone (so not k or s, which also fold to U+212A and
 * U+017F) are kept. Null when an alternative has no such run.
 */
function requiredLiterals(tokens: readonly Token[], ignoreCase: boolean): string[] | null {
  const branches: Token[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === "open") depth++;
    if (token.kind === "close") depth--;
    if (token.kind === "alt" && depth === 0) branches.push([]);
    else branches.at(-1)?.push(token);
  }
  const literals: string[] = [];
  for (const branch of branches) {
    const literal = longestRun(branch, ignoreCase);
    if (literal === null) return null;
    literals.push(literal);
  }
  return [...new Set(literals)];
}

function longestRun(tokens: readonly Token[], ignoreCase: boolean): string | null {
  let depth = 0;
  const runs: string[] = [];
  let run = "";
  const end = () => {
    if (run) runs.push(run);
    run = "";
  };
  tokens.forEach((token, i) => {
    const next = tokens[i + 1];
    if (token.kind === "open") depth++;
    if (token.kind === "close") depth--;
    if (token.kind !== "char" || depth > 0) {
      end();
      return;
    }
    if (next?.kind === "quantifier") {
      if (next.min > 0) run += token.char;
      end();
      return;
    }
    run += token.char;
  });
  end();
  const pieces = ignoreCase
    ? runs.flatMap((r) => r.split(/[^\x20-\x7e]|[ksKS]/)).map((r) => r.toLowerCase())
    : runs;
  const best = pieces.reduce((a, b) => (b.length > a.length ? b : a), "");
  return best.length >= 2 ? best : null;
}
