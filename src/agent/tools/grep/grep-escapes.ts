import { LINE_BY_LINE, type PatternCursor } from "./grep-cursor.js";
import type { Shorthand } from "./grep-tokens.js";

/**
 * The escapes that read the same inside and outside a bracket expression:
 * shorthand classes, Unicode properties and characters written by their
 * code. Each reads from the cursor just past the escaped letter.
 */

/** \d \w \s \h and their negations; null for any other letter. */
export function shorthand(c: string): { name: Shorthand; negated: boolean } | null {
  const lower = c.toLowerCase();
  if (lower !== "d" && lower !== "w" && lower !== "s" && lower !== "h") return null;
  return { name: lower, negated: c !== lower };
}

/** \p{L}, \p{Script=Greek}, \pL: checked by JavaScript itself. */
export function property(cursor: PatternCursor, c: string, at: number): string {
  const braced = /^\{([^}]*)\}/.exec(cursor.rest());
  const single = /^[A-Za-z]/.exec(cursor.rest());
  const body = braced?.[1] ?? single?.[0];
  if (body === undefined) {
    cursor.invalid(`\\${c} at column ${at + 1} needs a property name, e.g. \\${c}{L}`);
  }
  cursor.at += Array.from(braced?.[0] ?? single?.[0] ?? "").length;
  const text = `\\${c}{${body}}`;
  if (isValid(text)) return text;
  if (!body.includes("=") && isValid(`\\${c}{Script=${body}}`)) {
    cursor.unsupported(
      `${text} at column ${at + 1} names a script the way PCRE does; write \\${c}{Script=${body}}`,
    );
  }
  cursor.invalid(
    `${text} at column ${at + 1} is not a Unicode property JavaScript knows (e.g. \\p{L}, \\p{Lu}, \\p{Script=Greek})`,
  );
}

/** \xHH, \x{H..}, \uHHHH, \u{H..}, \o{...}, \0, \0dd, \cX: the character itself, or null. */
export function codeEscape(cursor: PatternCursor, c: string, at: number): string | null {
  const rest = cursor.rest();
  let code: number | null = null;
  let used = 0;
  if (c === "x" || c === "u") {
    const digits = c === "x" ? 2 : 4;
    const match = new RegExp(`^(?:\\{([0-9a-fA-F]{1,6})\\}|([0-9a-fA-F]{${digits}}))`).exec(rest);
    if (!match) {
      cursor.invalid(
        `\\${c} at column ${at + 1} must be followed by hexadecimal digits (e.g. \\${c}${c === "x" ? "41" : "0041"})`,
      );
    }
    code = Number.parseInt(match[1] ?? match[2] ?? "", 16);
    used = match[0].length;
  } else if (c === "o") {
    const match = /^\{([0-7]{1,8})\}/.exec(rest);
    if (!match) cursor.invalid(`\\o at column ${at + 1} must be followed by {octal digits}`);
    code = Number.parseInt(match[1] ?? "", 8);
    used = match[0].length;
  } else if (c === "0") {
    const match = /^[0-7]{0,2}/.exec(rest)?.[0] ?? "";
    code = Number.parseInt(`0${match}`, 8);
    used = match.length;
  } else if (c === "c") {
    const letter = /^[A-Za-z]/.exec(rest)?.[0];
    if (!letter) cursor.invalid(`\\c at column ${at + 1} must be followed by a letter`);
    code = (letter.toUpperCase().codePointAt(0) ?? 64) ^ 0x40;
    used = 1;
  }
  if (code === null) return null;
  if (code > 0x10ffff) cursor.invalid(`the code point at column ${at + 1} is past U+10FFFF`);
  if (code === 10) {
    cursor.unsupported(`the escape at column ${at + 1} stands for a line break; ${LINE_BY_LINE}`);
  }
  cursor.at += used;
  return String.fromCodePoint(code);
}

function isValid(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}
