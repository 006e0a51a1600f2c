import { ToolError } from "../define-tool.js";
import {
  CONTROL_ESCAPES,
  type GroupKind,
  type ParsedPattern,
  POSIX_CLASSES,
  type SetMember,
  type Shorthand,
  type Token,
} from "./grep-tokens.js";

const LINE_BY_LINE =
  "grep_search matches one line at a time (a line never holds its line break), so this can never match; search for one of the lines, or use run_shell (e.g. `rg -U` or `grep -Pzo`) for a match across lines";
const NOT_REPEATABLE = new Set<Token["kind"]>(["open", "alt", "anchor", "quantifier"]);
const LOOKAROUNDS = new Set<GroupKind>(["ahead", "not-ahead", "behind", "not-behind"]);
/** Larger counts make JavaScript's engine slow for nothing a line needs. */
const MAX_REPEAT = 10_000;

/**
 * Reads a pattern into tokens. The dialect is JavaScript's (ECMAScript with
 * the u flag); the PCRE and POSIX spellings models also write are taken
 * where they mean exactly one JavaScript thing (a leading (?i), [[:alpha:]],
 * \h, \A, \z, \<, (?P<name>...), \Q...\E, \x{...}), and everything else is
 * refused with where it is and what to write instead, so no search silently
 * means something other than what was written.
 */
export function parseSearchPattern(pattern: string): ParsedPattern {
  return new Parser(pattern).parse();
}

class Parser {
  readonly #source: string;
  readonly #chars: string[];
  #at = 0;
  readonly #tokens: Token[] = [];
  readonly #open: Array<{ at: number; group: GroupKind; number?: number; name?: string }> = [];
  #groups = 0;
  readonly #names = new Set<string>();
  /** Groups (by number and by name) whose ")" has been read. */
  readonly #closed = new Set<number | string>();
  readonly #backrefs: Array<{ at: number; group: number; ready: boolean }> = [];
  readonly #namedRefs: Array<{ at: number; name: string; ready: boolean }> = [];

  constructor(source: string) {
    this.#source = source;
    this.#chars = Array.from(source);
  }

  parse(): ParsedPattern {
    const ignoreCase = this.#leadingFlags();
    const newline = this.#chars.indexOf("\n");
    if (newline !== -1) {
      this.#unsupported(`it holds a line break (column ${newline + 1}); ${LINE_BY_LINE}`);
    }
    while (this.#at < this.#chars.length) {
      const token = this.#token();
      if (token) this.#tokens.push(token);
    }
    const unclosed = this.#open.at(-1);
    if (unclosed) {
      this.#invalid(
        `the "(" at column ${unclosed.at + 1} is never closed; close the group with ")", or escape it as \\( to match a literal parenthesis`,
      );
    }
    for (const ref of this.#backrefs) {
      if (ref.group > this.#groups) {
        this.#invalid(
          `\\${ref.group} at column ${ref.at + 1} refers to group ${ref.group}, but the pattern has ${this.#groups === 0 ? "no groups" : `only ${this.#groups}`}`,
        );
      }
      if (!ref.ready) this.#unready(`\\${ref.group}`, ref.at);
    }
    for (const ref of this.#namedRefs) {
      if (!this.#names.has(ref.name)) {
        this.#invalid(
          `the backreference at column ${ref.at + 1} names the group "${ref.name}", which the pattern does not define`,
        );
      }
      if (!ref.ready) this.#unready(`the backreference to "${ref.name}"`, ref.at);
    }
    return { tokens: this.#tokens, ignoreCase };
  }

  /** `(?i)` (and the no-ops `(?m)`, `(?s)`) at the very start. */
  #leadingFlags(): boolean {
    let ignoreCase = false;
    for (;;) {
      const flags = /^\(\?([a-zA-Z]+)\)/.exec(this.#rest());
      if (!flags) return ignoreCase;
      const letters = flags[1] ?? "";
      const other = [...letters].find((l) => !"ims".includes(l));
      if (other) {
        this.#unsupported(
          `the inline flag "${other}" in "${flags[0]}" at column ${this.#at + 1} is not supported; only a leading (?i) is (or set case_insensitive: true)`,
        );
      }
      ignoreCase ||= letters.includes("i");
      this.#at += Array.from(flags[0]).length;
    }
  }

  /** JavaScript matches such a reference as empty text where PCRE and Perl fail: refused. */
  #unready(what: string, at: number): never {
    this.#unsupported(
      `${what} at column ${at + 1} comes before its group has matched (the group comes later, or the reference is inside it); put the reference after the group's ")"`,
    );
  }

  #rest(): string {
    return this.#chars.slice(this.#at).join("");
  }

  #invalid(reason: string): never {
    throw new ToolError(
      `grep_search: the pattern /${this.#source}/ is not a valid regular expression: ${reason}. Fix it and call grep_search again.`,
    );
  }

  #unsupported(reason: string): never {
    throw new ToolError(
      `grep_search cannot use the pattern /${this.#source}/: ${reason}. grep_search's patterns are JavaScript regular expressions (see its description).`,
    );
  }

  #token(): Token | null {
    const at = this.#at;
    const c = this.#chars[this.#at++] ?? "";
    switch (c) {
      case "\\":
        return this.#escape(at);
      case "[":
        return this.#set(at);
      case "(":
        return this.#group(at);
      case ")": {
        const open = this.#open.pop();
        if (!open) {
          this.#invalid(
            `the ")" at column ${at + 1} has no matching "("; escape it as \\) to match a literal parenthesis`,
          );
        }
        if (open.number !== undefined) this.#closed.add(open.number);
        if (open.name !== undefined) this.#closed.add(open.name);
        return { kind: "close", group: open.group };
      }
      case "|":
        return { kind: "alt" };
      case ".":
        return { kind: "any" };
      case "^":
        return { kind: "anchor", anchor: "start" };
      case "$":
        return { kind: "anchor", anchor: "end" };
      case "*":
        return this.#quantifier(0, null, c, at);
      case "+":
        return this.#quantifier(1, null, c, at);
      case "?":
        return this.#quantifier(0, 1, c, at);
      case "{":
        return this.#interval(at) ?? { kind: "char", char: c };
      default:
        return { kind: "char", char: c };
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` or `{,m}` after something repeatable; else null (a literal brace). */
  #interval(at: number): Token | null {
    const interval = /^(\d*)(,?)(\d*)\}/.exec(this.#rest());
    if (!interval || !this.#canRepeat()) return null;
    const [written, low = "", comma = "", high = ""] = interval;
    if (low === "" && (comma === "" || high === "")) return null;
    this.#at += written.length;
    const min = low === "" ? 0 : Number(low);
    const max = comma === "" ? min : high === "" ? null : Number(high);
    if (max !== null && max < min) {
      this.#invalid(`{${written} at column ${at + 1} has its numbers in the wrong order`);
    }
    if ((max ?? min) > MAX_REPEAT) {
      this.#unsupported(`{${written} at column ${at + 1} repeats more than ${MAX_REPEAT} times`);
    }
    return this.#quantifier(min, max, `{${written}`, at);
  }

  #canRepeat(): boolean {
    const last = this.#tokens.at(-1);
    if (last === undefined || NOT_REPEATABLE.has(last.kind)) return false;
    return !(last.kind === "close" && LOOKAROUNDS.has(last.group));
  }

  #quantifier(min: number, max: number | null, written: string, at: number): Token {
    if (!this.#canRepeat()) {
      const last = this.#tokens.at(-1);
      if (last?.kind === "quantifier") {
        this.#invalid(`"${written}" at column ${at + 1} repeats a repetition`);
      }
      if (last?.kind === "close") {
        this.#invalid(
          `"${written}" at column ${at + 1} repeats a lookaround, which matches no text`,
        );
      }
      this.#invalid(
        `"${written}" at column ${at + 1} has nothing before it to repeat; escape it (\\${written[0]}) to match it literally`,
      );
    }
    const next = this.#chars[this.#at];
    let lazy = false;
    if (next === "?") {
      lazy = true;
      this.#at++;
    } else if (next === "+") {
      this.#unsupported(
        `the possessive repetition "${written}+" at column ${at + 1} is not supported; write "${written}" (it may match where a possessive one would not) or use run_shell with \`rg --pcre2\``,
      );
    }
    return { kind: "quantifier", min, max, lazy };
  }

  #group(at: number): Token | null {
    if (this.#chars[this.#at] !== "?") return this.#openGroup(at, "capture");
    const rest = this.#rest().slice(1);
    const name = /^(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest);
    if (name) {
      const groupName = name[1] ?? name[2] ?? "";
      if (this.#names.has(groupName)) {
        this.#invalid(`the group name "${groupName}" at column ${at + 1} is used twice`);
      }
      this.#names.add(groupName);
      this.#at += 1 + name[0].length;
      return this.#openGroup(at, "named", groupName);
    }
    const simple: Array<[string, GroupKind]> = [
      [":", "plain"],
      ["=", "ahead"],
      ["!", "not-ahead"],
      ["<=", "behind"],
      ["<!", "not-behind"],
    ];
    for (const [prefix, kind] of simple) {
      if (rest.startsWith(prefix)) {
        this.#at += 1 + prefix.length;
        return this.#openGroup(at, kind);
      }
    }
    const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (backref) {
      this.#at += 1 + backref[0].length;
      this.#namedRefs.push({
        at,
        name: backref[1] ?? "",
        ready: this.#closed.has(backref[1] ?? ""),
      });
      return { kind: "named-backref", name: backref[1] ?? "" };
    }
    if (rest.startsWith("#")) {
      const end = this.#chars.indexOf(")", this.#at);
      if (end === -1) this.#invalid(`the comment "(?#" at column ${at + 1} is never closed`);
      this.#at = end + 1;
      return null;
    }
    return this.#unsupportedGroup(at, rest);
  }

  #unsupportedGroup(at: number, rest: string): never {
    const shown = `(?${rest.slice(0, 3)}`;
    const where = `at column ${at + 1}`;
    if (rest.startsWith(">")) {
      this.#unsupported(
        `the atomic group "(?>" ${where} is not supported; use a plain group (?:...) instead (it may match where the atomic one would not)`,
      );
    }
    const flags = /^[a-zA-Z]*(?:-[a-zA-Z]*)?[):]/.exec(rest);
    if (flags) {
      this.#unsupported(
        `the inline flags "(?${flags[0]}" ${where} are not supported; only a leading (?i) is. For a search without case, set case_insensitive: true and drop the flag; for one part only, write its letters as classes such as [Gg][Ee][Tt]`,
      );
    }
    if (/^(?:R|[+-]?\d+|&|P>)/.test(rest)) {
      this.#unsupported(`the recursion "${shown}" ${where} is not supported`);
    }
    if (rest.startsWith("(")) {
      this.#unsupported(
        `the conditional group "${shown}" ${where} is not supported; search for each case with |`,
      );
    }
    if (rest.startsWith("|")) {
      this.#unsupported(
        `the branch-reset group "(?|" ${where} is not supported; use a plain group (?:...) (group numbers then run on across the branches)`,
      );
    }
    this.#invalid(`"${shown}" ${where} is not a group JavaScript knows`);
  }

  #openGroup(at: number, group: GroupKind, name?: string): Token {
    const captures = group === "capture" || group === "named";
    if (captures) this.#groups++;
    this.#open.push({
      at,
      group,
      ...(captures ? { number: this.#groups } : {}),
      ...(name === undefined ? {} : { name }),
    });
    return { kind: "open", group, ...(name === undefined ? {} : { name }) };
  }

  #escape(at: number): Token | null {
    const c = this.#chars[this.#at++];
    if (c === undefined) {
      this.#invalid(
        `it ends with a lone backslash (column ${at + 1}); write \\\\ for a literal backslash`,
      );
    }
    const shorthand = this.#shorthand(c);
    if (shorthand) return { kind: "class", ...shorthand };
    const control = CONTROL_ESCAPES[c];
    if (control) return { kind: "char", char: control };
    switch (c) {
      case "b":
        return { kind: "anchor", anchor: "boundary" };
      case "B":
        return { kind: "anchor", anchor: "non-boundary" };
      case "<":
        return { kind: "anchor", anchor: "word-start" };
      case ">":
        return { kind: "anchor", anchor: "word-end" };
      case "A":
        return { kind: "anchor", anchor: "start" };
      case "z":
      case "Z":
        return { kind: "anchor", anchor: "end" };
      case "n":
      case "R":
        this.#unsupported(`\\${c} at column ${at + 1} stands for a line break; ${LINE_BY_LINE}`);
        break;
      case "N":
        return { kind: "any" };
      case "p":
      case "P":
        return { kind: "property", text: this.#property(c, at) };
      case "k":
        return this.#namedBackref(at);
      case "g":
        return this.#gBackref(at);
      case "Q":
        return this.#quoted();
      case "E":
        return null;
      case "K":
      case "G":
      case "X":
      case "C":
        this.#unsupported(`\\${c} at column ${at + 1} is not supported (it is PCRE-only)`);
    }
    if (/[1-9]/.test(c)) {
      let digits = c;
      while (/\d/.test(this.#chars[this.#at] ?? "")) digits += this.#chars[this.#at++];
      const group = Number(digits);
      this.#backrefs.push({ at, group, ready: this.#closed.has(group) });
      return { kind: "backref", group };
    }
    const code = this.#codeEscape(c, at);
    if (code !== null) return { kind: "char", char: code };
    if (/[A-Za-z0-9]/.test(c)) {
      this.#invalid(
        `\\${c} at column ${at + 1} is not an escape JavaScript knows; write "${c}" for the letter itself, or use a class such as [A-Za-z]`,
      );
    }
    // Any other escaped character stands for itself (\. \( \/ \' \- ...).
    return { kind: "char", char: c };
  }

  #shorthand(c: string): { name: Shorthand; negated: boolean } | null {
    const lower = c.toLowerCase();
    if (lower !== "d" && lower !== "w" && lower !== "s" && lower !== "h") return null;
    return { name: lower, negated: c !== lower };
  }

  /** \p{L}, \p{Script=Greek}, \pL: checked by JavaScript itself. */
  #property(c: string, at: number): string {
    const braced = /^\{([^}]*)\}/.exec(this.#rest());
    const single = /^[A-Za-z]/.exec(this.#rest());
    const body = braced?.[1] ?? single?.[0];
    if (body === undefined) {
      this.#invalid(`\\${c} at column ${at + 1} needs a property name, e.g. \\${c}{L}`);
    }
    this.#at += Array.from(braced?.[0] ?? single?.[0] ?? "").length;
    const text = `\\${c}{${body}}`;
    if (isValid(text)) return text;
    if (!body.includes("=") && isValid(`\\${c}{Script=${body}}`)) {
      this.#unsupported(
        `${text} at column ${at + 1} names a script the way PCRE does; write \\${c}{Script=${body}}`,
      );
    }
    this.#invalid(
      `${text} at column ${at + 1} is not a Unicode property JavaScript knows (e.g. \\p{L}, \\p{Lu}, \\p{Script=Greek})`,
    );
  }

  #namedBackref(at: number): Token {
    const ref =
      /^(?:<([A-Za-z_][A-Za-z0-9_]*)>|\{([A-Za-z_][A-Za-z0-9_]*)\}|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(
        this.#rest(),
      );
    if (!ref) this.#invalid(`\\k at column ${at + 1} must name a group, as in \\k<name>`);
    this.#at += ref[0].length;
    const name = ref[1] ?? ref[2] ?? ref[3] ?? "";
    this.#namedRefs.push({ at, name, ready: this.#closed.has(name) });
    return { kind: "named-backref", name };
  }

  /** PCRE's \g1, \g{1}, \g{name}; relative ones (\g{-1}) are refused. */
  #gBackref(at: number): Token {
    const ref = /^(?:\{(-?\d+|[A-Za-z_][A-Za-z0-9_]*)\}|(-?\d+))/.exec(this.#rest());
    if (!ref) this.#invalid(`\\g at column ${at + 1} must name a group, as in \\g{1}`);
    this.#at += ref[0].length;
    const target = ref[1] ?? ref[2] ?? "";
    if (target.startsWith("-")) {
      this.#unsupported(
        `the relative backreference \\g{${target}} at column ${at + 1} is not supported; write the group's number, e.g. \\1`,
      );
    }
    if (/^\d+$/.test(target)) {
      const group = Number(target);
      this.#backrefs.push({ at, group, ready: this.#closed.has(group) });
      return { kind: "backref", group };
    }
    this.#namedRefs.push({ at, name: target, ready: this.#closed.has(target) });
    return { kind: "named-backref", name: target };
  }

  /** \Q...\E: every character in between stands for itself. */
  #quoted(): Token | null {
    const end = this.#rest().indexOf("\\E");
    const text = end === -1 ? this.#rest() : this.#rest().slice(0, end);
    const chars = Array.from(text);
    this.#at += chars.length + (end === -1 ? 0 : 2);
    const last = chars.pop();
    for (const char of chars) this.#tokens.push({ kind: "char", char });
    return last === undefined ? null : { kind: "char", char: last };
  }

  /** \xHH, \x{H..}, \uHHHH, \u{H..}, \o{...}, \0, \0dd, \cX: the character itself, or null. */
  #codeEscape(c: string, at: number): string | null {
    const rest = this.#rest();
    let code: number | null = null;
    let used = 0;
    if (c === "x" || c === "u") {
      const digits = c === "x" ? 2 : 4;
      const match = new RegExp(`^(?:\\{([0-9a-fA-F]{1,6})\\}|([0-9a-fA-F]{${digits}}))`).exec(rest);
      if (!match) {
        this.#invalid(
          `\\${c} at column ${at + 1} must be followed by hexadecimal digits (e.g. \\${c}${c === "x" ? "41" : "0041"})`,
        );
      }
      code = Number.parseInt(match[1] ?? match[2] ?? "", 16);
      used = match[0].length;
    } else if (c === "o") {
      const match = /^\{([0-7]{1,8})\}/.exec(rest);
      if (!match) this.#invalid(`\\o at column ${at + 1} must be followed by {octal digits}`);
      code = Number.parseInt(match[1] ?? "", 8);
      used = match[0].length;
    } else if (c === "0") {
      const match = /^[0-7]{0,2}/.exec(rest)?.[0] ?? "";
      code = Number.parseInt(`0${match}`, 8);
      used = match.length;
    } else if (c === "c") {
      const letter = /^[A-Za-z]/.exec(rest)?.[0];
      if (!letter) this.#invalid(`\\c at column ${at + 1} must be followed by a letter`);
      code = (letter.toUpperCase().codePointAt(0) ?? 64) ^ 0x40;
      used = 1;
    }
    if (code === null) return null;
    if (code > 0x10ffff) this.#invalid(`the code point at column ${at + 1} is past U+10FFFF`);
    if (code === 10) {
      this.#unsupported(`the escape at column ${at + 1} stands for a line break; ${LINE_BY_LINE}`);
    }
    this.#at += used;
    return String.fromCodePoint(code);
  }

  /** A bracket expression, after its "[". */
  #set(at: number): Token {
    const negated = this.#chars[this.#at] === "^";
    if (negated) this.#at++;
    const members: SetMember[] = [];
    let newline = false;
    for (let first = true; ; first = false) {
      const c = this.#chars[this.#at];
      if (c === undefined) {
        this.#invalid(
          `the "[" at column ${at + 1} is never closed; close the set with "]", or escape it as \\[ to match a literal bracket`,
        );
      }
      if (c === "]" && !first) break;
      const member = this.#setMember();
      if (member === "newline") newline = true;
      else members.push(this.#maybeRange(member, at));
    }
    this.#at++;
    if (members.length === 0) {
      // [^\n] is any character of a line; [\n] is none.
      if (negated && newline) return { kind: "any" };
      if (newline) this.#unsupported(`the set at column ${at + 1} holds only \\n; ${LINE_BY_LINE}`);
      this.#invalid(`the set "[]" at column ${at + 1} is empty`);
    }
    return { kind: "set", negated, members };
  }

  /** `member` as the start of a range `a-z`, when a "-" and an end follow. */
  #maybeRange(member: SetMember, at: number): SetMember {
    const after = this.#chars[this.#at + 1];
    if (member.kind !== "char" || this.#chars[this.#at] !== "-" || after === "]" || !after) {
      return member;
    }
    this.#at++;
    const end = this.#setMember();
    if (end === "newline" || end.kind !== "char") {
      this.#invalid(`a range in the set at column ${at + 1} must run between two characters`);
    }
    if ((member.char.codePointAt(0) ?? 0) > (end.char.codePointAt(0) ?? 0)) {
      this.#invalid(
        `the range ${member.char}-${end.char} in the set at column ${at + 1} runs backwards; write ${end.char}-${member.char}`,
      );
    }
    return { kind: "range", from: member.char, to: end.char };
  }

  #setMember(): SetMember | "newline" {
    const at = this.#at;
    const c = this.#chars[this.#at++] ?? "";
    if (c === "[") return this.#bracketClass(at) ?? { kind: "char", char: c };
    if (c !== "\\") return { kind: "char", char: c };
    const e = this.#chars[this.#at++];
    if (e === undefined) this.#invalid(`it ends with a lone backslash (column ${at + 1})`);
    const shorthand = this.#shorthand(e);
    if (shorthand) {
      if (shorthand.name === "h" && shorthand.negated) {
        this.#unsupported(
          `\\H inside [...] (column ${at + 1}) is not supported; list the characters you mean instead`,
        );
      }
      return { kind: "class", ...shorthand };
    }
    if (e === "n") return "newline";
    if (e === "p" || e === "P") return { kind: "property", text: this.#property(e, at) };
    const control = CONTROL_ESCAPES[e] ?? (e === "b" ? "\b" : undefined);
    if (control) return { kind: "char", char: control };
    const code = this.#codeEscape(e, at);
    if (code !== null) return { kind: "char", char: code };
    if (/[A-Za-z0-9]/.test(e)) {
      this.#invalid(
        `\\${e} inside [...] (column ${at + 1}) is not an escape JavaScript knows; write "${e}" for the letter itself`,
      );
    }
    return { kind: "char", char: e };
  }

  /** `[:alpha:]`, or a collating element `[.x.]` / `[=x=]`, after its "[". */
  #bracketClass(at: number): SetMember | null {
    const rest = this.#rest();
    const posix = /^:(\^?)([a-z]+):\]/.exec(rest);
    if (posix) {
      const [written, caret, name = ""] = posix;
      const ranges = POSIX_CLASSES[name];
      if (ranges === undefined) {
        this.#invalid(
          `[:${caret}${name}:] at column ${at + 1} is not a POSIX character class (alpha, digit, alnum, upper, lower, space, blank, punct, xdigit, cntrl, print, graph, word)`,
        );
      }
      if (caret) {
        this.#unsupported(
          `the negated POSIX class [:^${name}:] at column ${at + 1} is not supported; write a negated set instead, e.g. [^${ranges}]`,
        );
      }
      this.#at += written.length;
      return { kind: "posix", ranges };
    }
    const collating = /^([.=])(.)\1\]/u.exec(rest);
    if (!collating) return null;
    this.#at += Array.from(collating[0]).length;
    return { kind: "char", char: collating[2] ?? "" };
  }
}

function isValid(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}
