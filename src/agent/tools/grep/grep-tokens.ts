/**
 * A search pattern as a flat list of tokens: grep-regex.ts reads what models
 * write into them (JavaScript syntax, plus the PCRE and POSIX spellings that
 * have an exact JavaScript meaning), grep-pattern.ts writes them out as one
 * JavaScript regular expression.
 */

/** \d \w \s as JavaScript has them (ASCII digits and word characters); \h is horizontal space. */
export type Shorthand = "d" | "w" | "s" | "h";

export type SetMember =
  | { kind: "char"; char: string }
  | { kind: "range"; from: string; to: string }
  | { kind: "class"; name: Shorthand; negated: boolean }
  /** `[:alpha:]` inside brackets: its ASCII characters, as ranges for JavaScript. */
  | { kind: "posix"; ranges: string }
  /** `\p{L}` / `\P{L}`, as JavaScript writes it. */
  | { kind: "property"; text: string };

export type GroupKind =
  | "capture"
  | "plain"
  | "named"
  | "ahead"
  | "not-ahead"
  | "behind"
  | "not-behind";

export type Token =
  | { kind: "char"; char: string }
  | { kind: "any" }
  | { kind: "class"; name: Shorthand; negated: boolean }
  | { kind: "property"; text: string }
  | { kind: "set"; negated: boolean; members: SetMember[] }
  | { kind: "backref"; group: number }
  | { kind: "named-backref"; name: string }
  | { kind: "open"; group: GroupKind; name?: string | undefined }
  | { kind: "close"; group: GroupKind }
  | { kind: "alt" }
  | { kind: "quantifier"; min: number; max: number | null; lazy: boolean }
  | {
      kind: "anchor";
      anchor: "start" | "end" | "boundary" | "non-boundary" | "word-start" | "word-end";
    };

export interface ParsedPattern {
  tokens: Token[];
  /** A leading (?i). */
  ignoreCase: boolean;
}

/** POSIX bracket classes as PCRE (without UCP) and the C locale have them: ASCII only. */
export const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: "A-Za-z",
  digit: "0-9",
  alnum: "0-9A-Za-z",
  upper: "A-Z",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  blank: "\\t ",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  cntrl: "\\x00-\\x1f\\x7f",
  print: " -~",
  graph: "!-~",
  word: "0-9A-Za-z_",
};

/** PCRE's \h: the horizontal spaces. */
export const HORIZONTAL_SPACE = "\\t \\u00a0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000";

export const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  t: "\t",
  r: "\r",
  f: "\f",
  v: "\v",
  e: "\x1b",
  a: "\x07",
};
