import type { PatternCursor } from "./grep-cursor.js";
import { LINE_BY_LINE } from "./grep-cursor.js";
import { codeEscape, property, shorthand } from "./grep-escapes.js";
import { CONTROL_ESCAPES, POSIX_CLASSES, type SetMember, type Token } from "./grep-tokens.js";

/**
 * A bracket expression, read from just past its "[" (at column `at`): its
 * members, ranges, POSIX classes and escapes, with a "[^...]" that holds
 * only \n read as any character of a line.
 */
export function readSet(cursor: PatternCursor, at: number): Token {
  const negated = cursor.peek() === "^";
  if (negated) cursor.at++;
  const members: SetMember[] = [];
  let newline = false;
  for (let first = true; ; first = false) {
    const c = cursor.peek();
    if (c === undefined) {
      cursor.invalid(
        `the "[" at column ${at + 1} is never closed; close the set with "]", or escape it as \\[ to match a literal bracket`,
      );
    }
    if (c === "]" && !first) break;
    const member = setMember(cursor);
    if (member === "newline") newline = true;
    else members.push(maybeRange(cursor, member, at));
  }
  cursor.at++;
  if (members.length === 0) {
    // [^\n] is any character of a line; [\n] is none.
    if (negated && newline) return { kind: "any" };
    if (newline) cursor.unsupported(`the set at column ${at + 1} holds only \\n; ${LINE_BY_LINE}`);
    cursor.invalid(`the set "[]" at column ${at + 1} is empty`);
  }
  return { kind: "set", negated, members };
}

/** `member` as the start of a range `a-z`, when a "-" and an end follow. */
function maybeRange(cursor: PatternCursor, member: SetMember, at: number): SetMember {
  const after = cursor.peek(1);
  if (member.kind !== "char" || cursor.peek() !== "-" || after === "]" || !after) {
    return member;
  }
  cursor.at++;
  const end = setMember(cursor);
  if (end === "newline" || end.kind !== "char") {
    cursor.invalid(`a range in the set at column ${at + 1} must run between two characters`);
  }
  if ((member.char.codePointAt(0) ?? 0) > (end.char.codePointAt(0) ?? 0)) {
    cursor.invalid(
      `the range ${member.char}-${end.char} in the set at column ${at + 1} runs backwards; write ${end.char}-${member.char}`,
    );
  }
  return { kind: "range", from: member.char, to: end.char };
}

function setMember(cursor: PatternCursor): SetMember | "newline" {
  const at = cursor.at;
  const c = cursor.next() ?? "";
  if (c === "[") return bracketClass(cursor, at) ?? { kind: "char", char: c };
  if (c !== "\\") return { kind: "char", char: c };
  const e = cursor.next();
  if (e === undefined) cursor.invalid(`it ends with a lone backslash (column ${at + 1})`);
  const short = shorthand(e);
  if (short) {
    if (short.name === "h" && short.negated) {
      cursor.unsupported(
        `\\H inside [...] (column ${at + 1}) is not supported; list the characters you mean instead`,
      );
    }
    return { kind: "class", ...short };
  }
  if (e === "n") return "newline";
  if (e === "p" || e === "P") return { kind: "property", text: property(cursor, e, at) };
  const control = CONTROL_ESCAPES[e] ?? (e === "b" ? "\b" : undefined);
  if (control) return { kind: "char", char: control };
  const code = codeEscape(cursor, e, at);
  if (code !== null) return { kind: "char", char: code };
  if (/[A-Za-z0-9]/.test(e)) {
    cursor.invalid(
      `\\${e} inside [...] (column ${at + 1}) is not an escape JavaScript knows; write "${e}" for the letter itself`,
    );
  }
  return { kind: "char", char: e };
}

/** `[:alpha:]`, or a collating element `[.x.]` / `[=x=]`, after its "[". */
function bracketClass(cursor: PatternCursor, at: number): SetMember | null {
  const rest = cursor.rest();
  const posix = /^:(\^?)([a-z]+):\]/.exec(rest);
  if (posix) {
    const [written, caret, name = ""] = posix;
    const ranges = POSIX_CLASSES[name];
    if (ranges === undefined) {
      cursor.invalid(
        `[:${caret}${name}:] at column ${at + 1} is not a POSIX character class (alpha, digit, alnum, upper, lower, space, blank, punct, xdigit, cntrl, print, graph, word)`,
      );
    }
    if (caret) {
      cursor.unsupported(
        `the negated POSIX class [:^${name}:] at column ${at + 1} is not supported; write a negated set instead, e.g. [^${ranges}]`,
      );
    }
    cursor.at += written.length;
    return { kind: "posix", ranges };
  }
  const collating = /^([.=])(.)\1\]/u.exec(rest);
  if (!collating) return null;
  cursor.at += Array.from(collating[0]).length;
  return { kind: "char", char: collating[2] ?? "" };
}
