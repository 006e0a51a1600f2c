import { ToolError } from "./define-tool.js";
import {
  ANCHOR_ESCAPES,
  type ClassName,
  CONTROL_ESCAPES,
  type ParsedPattern,
  POSIX_CLASS_NAMES,
  type SetMember,
  SHORTHANDS,
  type Token,
} from "./grep-tokens.js";

const LINE_BY_LINE =
  "grep_search matches one line at a time, so a line break can never match; search for one of the lines, or use run_shell (e.g. `rg -U` or `grep -Pzo`) for a match across lines";
const PERL_ONLY = "use run_shell with `rg --pcre2` or `grep -P` if you need it";
const NOT_REPEATABLE = new Set<Token["kind"]>(["open", "alt", "anchor", "quantifier"]);

/**
 * Reads a pattern the way models write them (Perl/JavaScript style) into
 * tokens. Whatever cannot be said to git grep's POSIX engine exactly is
 * refused with the reason, so no search silently means something else.
 */
export function parseSearchPattern(pattern: string): ParsedPattern {
  return new Parser(pattern).parse();
}

class Parser {
  readonly #source: string;
  #at = 0;
  readonly #tokens: Token[] = [];
  #groups = 0;
  #depth = 0;
  #backrefs = 0;
  #nonCapturing = false;

  constructor(source: string) {
    this.#source = source;
  }

  parse(): ParsedPattern {
    const ignoreCase = this.#source.startsWith("(?i)");
    if (ignoreCase) this.#at = 4;
    // git grep would take each line of a multi-line -e as a pattern of its own.
    if (this.#source.includes("\n")) {
      this.#refuse(`the pattern contains a line break; ${LINE_BY_LINE}`);
    }
    while (this.#at < this.#source.length) this.#tokens.push(this.#token());
    if (this.#depth > 0) this.#refuse("a ( is never closed; escape a literal parenthesis as \\(");
    if (this.#backrefs > this.#groups) {
      this.#refuse(`\\${this.#backrefs} refers to a group that does not exist`);
    }
    if (this.#backrefs > 0 && this.#nonCapturing) {
      this.#refuse(
        "backreferences cannot be combined with (?:...) or named groups here; use plain (...) groups",
      );
    }
    return { tokens: this.#tokens, ignoreCase };
  }

  #refuse(reason: string): never {
    throw new ToolError(`grep_search cannot use the pattern /${this.#source}/: ${reason}.`);
  }

  #token(): Token {
    const c = this.#source[this.#at++] ?? "";
    switch (c) {
      case "\\":
        return this.#escape();
      case "[":
        return this.#set();
      case "(":
        return this.#group();
      case ")":
        if (this.#depth === 0) {
          this.#refuse("a ) has no matching (; escape a literal parenthesis as \\)");
        }
        this.#depth--;
        return { kind: "close" };
      case "|":
        return { kind: "alt" };
      case ".":
        return { kind: "any" };
      case "^":
        return { kind: "anchor", anchor: "start" };
      case "$":
        return { kind: "anchor", anchor: "end" };
      case "*":
        return this.#quantifier(0, null, c);
      case "+":
        return this.#quantifier(1, null, c);
      case "?":
        return this.#quantifier(0, 1, c);
      case "{":
        return this.#interval() ?? { kind: "char", char: c };
      default:
        return { kind: "char", char: c };
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` or `{,m}` after something repeatable; else null (a literal brace). */
  #interval(): Token | null {
    const interval = /^(\d*)(,?)(\d*)\}/.exec(this.#source.slice(this.#at));
    if (!interval || !this.#canRepeat()) return null;
    const [written, low = "", comma = "", high = ""] = interval;
    if (low === "" && (comma === "" || high === "")) return null;
    this.#at += written.length;
    const min = low === "" ? 0 : Number(low);
    const max = comma === "" ? min : high === "" ? null : Number(high);
    if (max !== null && max < min) this.#refuse(`{${written} has its numbers in the wrong order`);
    if ((max ?? min) > 255) {
      this.#refuse(`{${written} repeats more than 255 times, more than git grep allows`);
    }
    return this.#quantifier(min, max, `{${written}`);
  }

  #canRepeat(): boolean {
    const last = this.#tokens.at(-1);
    return last !== undefined && !NOT_REPEATABLE.has(last.kind);
  }

  #quantifier(min: number, max: number | null, written: string): Token {
    if (!this.#canRepeat()) {
      if (this.#tokens.at(-1)?.kind === "quantifier") {
        this.#refuse(`two repetition operators in a row before "${written}"`);
      }
      this.#refuse(
        `"${written}" has nothing before it to repeat; escape it (\\${written[0]}) to match it literally`,
      );
    }
    const next = this.#source[this.#at];
    // Lazy and greedy find the same lines; only the matched span differs, which grep does not show.
    if (next === "?") this.#at++;
    else if (next === "+") {
      this.#refuse(`possessive repetition ("${written}+") is not supported; ${PERL_ONLY}`);
    }
    return { kind: "quantifier", min, max };
  }

  #group(): Token {
    this.#depth++;
    if (this.#source[this.#at] !== "?") {
      this.#groups++;
      return { kind: "open" };
    }
    const rest = this.#source.slice(this.#at + 1);
    const named = /^P?<[A-Za-z_]\w*>/.exec(rest)?.[0] ?? (rest.startsWith(":") ? ":" : null);
    if (named !== null) {
      this.#at += 1 + named.length;
      this.#nonCapturing = true;
      return { kind: "open" };
    }
    if (/^(?:=|!|<=|<!)/.test(rest)) {
      this.#refuse(
        `lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported by git grep's POSIX regular expressions; search for the main part and read the context in the results, or ${PERL_ONLY}`,
      );
    }
    if (/^[a-zA-Z-]+\)/.test(rest)) {
      this.#refuse("inline flags such as (?i) work only at the very start of the pattern");
    }
    this.#refuse(`the group "(?${rest.slice(0, 3)}" is not supported; ${PERL_ONLY}`);
  }

  #escape(): Token {
    const c = this.#source[this.#at++];
    if (c === undefined) {
      this.#refuse("it ends with a lone backslash; write \\\\ for a literal backslash");
    }
    const shorthand = this.#shorthand(c);
    if (shorthand) return { kind: "class", ...shorthand };
    const control = CONTROL_ESCAPES[c];
    if (control) return { kind: "char", char: control };
    const anchor = ANCHOR_ESCAPES[c];
    if (anchor) return anchor;
    if (c === "n") this.#refuse(`it contains \\n; ${LINE_BY_LINE}`);
    if (c === "p" || c === "P") {
      this.#refuse(
        "Unicode property classes (\\p{...}) are not supported; use a POSIX class such as [[:alpha:]], [[:upper:]] or [[:punct:]]",
      );
    }
    if (/[1-9]/.test(c)) {
      this.#backrefs = Math.max(this.#backrefs, Number(c));
      return { kind: "backref", group: Number(c) };
    }
    const code = this.#codeEscape(c);
    if (code !== null) return { kind: "char", char: code };
    if (/[A-Za-z0-9]/.test(c)) {
      this.#refuse(
        `\\${c} is not an escape git grep understands; write the character itself, or use a class such as [[:alpha:]]`,
      );
    }
    // Any other escaped character stands for itself (\. \( \/ \' \- ...).
    return { kind: "char", char: c };
  }

  #shorthand(c: string): { name: ClassName; negated: boolean } | null {
    const name = SHORTHANDS[c.toLowerCase()];
    return name ? { name, negated: c !== c.toLowerCase() } : null;
  }

  /** \xHH, \x{H..}, \uHHHH and \u{H..}: the character itself, or null. */
  #codeEscape(c: string): string | null {
    if (c !== "x" && c !== "u") return null;
    const digits = c === "x" ? 2 : 4;
    const match = new RegExp(`^(?:\\{([0-9a-fA-F]{1,6})\\}|([0-9a-fA-F]{${digits}}))`).exec(
      this.#source.slice(this.#at),
    );
    if (!match) this.#refuse(`\\${c} must be followed by hexadecimal digits (e.g. \\x41)`);
    this.#at += match[0].length;
    const code = Number.parseInt(match[1] ?? match[2] ?? "", 16);
    if (code === 0 || code === 10 || code > 0x10ffff) {
      this.#refuse(`\\${c}${match[0]} cannot be searched for line by line`);
    }
    return String.fromCodePoint(code);
  }

  /** A bracket expression, after its "[". */
  #set(): Token {
    const negated = this.#source[this.#at] === "^";
    if (negated) this.#at++;
    const members: SetMember[] = [];
    let newline = false;
    for (let first = true; ; first = false) {
      const c = this.#source[this.#at];
      if (c === undefined) this.#refuse("a [ is never closed; escape a literal bracket as \\[");
      if (c === "]" && !first) break;
      const member = this.#setMember();
      if (member === "newline") newline = true;
      else members.push(this.#maybeRange(member));
    }
    this.#at++;
    if (members.length === 0) {
      if (negated && newline) return { kind: "any" };
      this.#refuse(newline ? `it contains [\\n]; ${LINE_BY_LINE}` : "[] is empty");
    }
    if (negated && members.length > 1 && members.some((m) => m.kind === "class" && m.negated)) {
      this.#refuse(
        "inside [^...], \\S, \\W, \\D and \\H cannot be combined with other members in git grep's POSIX regular expressions (that would take set subtraction); list the characters you mean instead, e.g. [ ] for a plain space or [[:space:]] for any whitespace",
      );
    }
    return { kind: "set", negated, members };
  }

  /** `member` as the start of a range `a-z`, when a "-" and an end follow. */
  #maybeRange(member: SetMember): SetMember {
    const after = this.#source[this.#at + 1];
    if (member.kind !== "char" || this.#source[this.#at] !== "-" || after === "]" || !after) {
      return member;
    }
    this.#at++;
    const end = this.#setMember();
    if (end === "newline" || end.kind !== "char") {
      this.#refuse("a range in [...] must run between two characters");
    }
    if ((member.char.codePointAt(0) ?? 0) > (end.char.codePointAt(0) ?? 0)) {
      this.#refuse(`the range ${member.char}-${end.char} in [...] runs backwards`);
    }
    return { kind: "range", from: member.char, to: end.char };
  }

  #setMember(): SetMember | "newline" {
    const c = this.#source[this.#at++] ?? "";
    if (c === "[") return this.#bracketClass() ?? { kind: "char", char: c };
    if (c !== "\\") return { kind: "char", char: c };
    const e = this.#source[this.#at++];
    if (e === undefined) this.#refuse("a [ is never closed; escape a literal bracket as \\[");
    const shorthand = this.#shorthand(e);
    if (shorthand) return { kind: "class", ...shorthand };
    if (e === "n") return "newline";
    const control = CONTROL_ESCAPES[e] ?? (e === "b" ? "\b" : undefined);
    if (control) return { kind: "char", char: control };
    const code = this.#codeEscape(e);
    if (code !== null) return { kind: "char", char: code };
    if (/[A-Za-z0-9]/.test(e)) {
      this.#refuse(
        `\\${e} inside [...] is not an escape git grep understands; write the character itself`,
      );
    }
    return { kind: "char", char: e };
  }

  /** `[:alpha:]`, or a collating element `[.x.]` / `[=x=]`, after its "[". */
  #bracketClass(): SetMember | null {
    const rest = this.#source.slice(this.#at);
    const posix = /^:(\^?)([a-z]+):\]/.exec(rest);
    if (posix) {
      const [written, caret, name = ""] = posix;
      if (!POSIX_CLASS_NAMES.has(name) || caret) {
        this.#refuse(`[:${caret}${name}:] is not a POSIX character class`);
      }
      this.#at += written.length;
      return { kind: "class", name: name as ClassName, negated: false };
    }
    const collating = /^([.=])(.)\1\]/u.exec(rest);
    if (!collating) return null;
    this.#at += collating[0].length;
    return { kind: "char", char: collating[2] ?? "" };
  }
}
