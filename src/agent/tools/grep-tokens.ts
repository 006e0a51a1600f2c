/**
 * A search pattern as a flat list of tokens: grep-regex.ts reads what models
 * write into them, grep-pattern.ts writes them out for each engine.
 */
export type ClassName =
  | "digit"
  | "word"
  | "space"
  | "blank"
  | "alpha"
  | "alnum"
  | "upper"
  | "lower"
  | "xdigit"
  | "punct"
  | "cntrl"
  | "print"
  | "graph";

export type SetMember =
  | { kind: "char"; char: string }
  | { kind: "range"; from: string; to: string }
  | { kind: "class"; name: ClassName; negated: boolean };

export type Token =
  | { kind: "char"; char: string }
  | { kind: "any" }
  | { kind: "class"; name: ClassName; negated: boolean }
  | { kind: "set"; negated: boolean; members: SetMember[] }
  | { kind: "backref"; group: number }
  | { kind: "open" }
  | { kind: "close" }
  | { kind: "alt" }
  | { kind: "quantifier"; min: number; max: number | null }
  | {
      kind: "anchor";
      anchor: "start" | "end" | "boundary" | "non-boundary" | "word-start" | "word-end";
    };

export interface ParsedPattern {
  tokens: Token[];
  ignoreCase: boolean;
}

export const POSIX_CLASS_NAMES: ReadonlySet<string> = new Set<ClassName>([
  "alpha",
  "alnum",
  "upper",
  "lower",
  "digit",
  "xdigit",
  "punct",
  "space",
  "blank",
  "cntrl",
  "print",
  "graph",
]);

/** \d \w \s \h; upper case negates. */
export const SHORTHANDS: Readonly<Record<string, ClassName>> = {
  d: "digit",
  w: "word",
  s: "space",
  h: "blank",
};

export const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  t: "\t",
  r: "\r",
  f: "\f",
  v: "\v",
  e: "\x1b",
  a: "\x07",
};

export const ANCHOR_ESCAPES: Readonly<Record<string, Token>> = {
  b: { kind: "anchor", anchor: "boundary" },
  B: { kind: "anchor", anchor: "non-boundary" },
  "<": { kind: "anchor", anchor: "word-start" },
  ">": { kind: "anchor", anchor: "word-end" },
  A: { kind: "anchor", anchor: "start" },
  z: { kind: "anchor", anchor: "end" },
  Z: { kind: "anchor", anchor: "end" },
};
