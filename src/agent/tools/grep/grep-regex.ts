import { LINE_BY_LINE, PatternCursor } from "./grep-cursor.js";
import { codeEscape, property, shorthand } from "./grep-escapes.js";
import { readSet } from "./grep-set.js";
import { CONTROL_ESCAPES, type GroupKind, type ParsedPattern, type Token } from "./grep-tokens.js";

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
  readonly #cursor: PatternCursor;
  readonly #tokens: Token[] = [];
  readonly #open: Array<{ at: number; group: GroupKind; number?: number; name?: string }> = [];
  #groups = 0;
  readonly #names = new Set<string>();
  /** Groups (by number and by name) whose ")" has been read. */
  readonly #closed = new Set<number | string>();
  readonly #backrefs: Array<{ at: number; group: number; ready: boolean }> = [];
  readonly #namedRefs: Array<{ at: number; name: string; ready: boolean }> = [];

  constructor(source: string) {
    this.#cursor = new PatternCursor(source);
  }

  parse(): ParsedPattern {
    const ignoreCase = this.#leadingFlags();
    const newline = this.#cursor.chars.indexOf("\n");
    if (newline !== -1) {
      this.#cursor.unsupported(`it holds a line break (column ${newline + 1}); ${LINE_BY_LINE}`);
    }
    while (this.#cursor.at < this.#cursor.chars.length) {
      const token = this.#token();
      if (token) this.#tokens.push(token);
    }
    const unclosed = this.#open.at(-1);
    if (unclosed) {
      this.#cursor.invalid(
        `the "(" at column ${unclosed.at + 1} is never closed; close the group with ")", or escape it as \\( to match a literal parenthesis`,
      );
    }
    for (const ref of this.#backrefs) {
      if (ref.group > this.#groups) {
        this.#cursor.invalid(
          `\\${ref.group} at column ${ref.at + 1} refers to group ${ref.group}, but the pattern has ${this.#groups === 0 ? "no groups" : `only ${this.#groups}`}`,
        );
      }
      if (!ref.ready) this.#unready(`\\${ref.group}`, ref.at);
    }
    for (const ref of this.#namedRefs) {
      if (!this.#names.has(ref.name)) {
        this.#cursor.invalid(
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
      const flags = /^\(\?([a-zA-Z]+)\)/.exec(this.#cursor.rest());
      if (!flags) return ignoreCase;
      const letters = flags[1] ?? "";
      const other = [...letters].find((l) => !"ims".includes(l));
      if (other) {
        this.#cursor.unsupported(
          `the inline flag "${other}" in "${flags[0]}" at column ${this.#cursor.at + 1} is not supported; only a leading (?i) is (or set case_insensitive: true)`,
        );
      }
      ignoreCase ||= letters.includes("i");
      this.#cursor.at += Array.from(flags[0]).length;
    }
  }

  /** JavaScript matches such a reference as empty text where PCRE and Perl fail: refused. */
  #unready(what: string, at: number): never {
    this.#cursor.unsupported(
      `${what} at column ${at + 1} comes before its group has matched (the group comes later, or the reference is inside it); put the reference after the group's ")"`,
    );
  }

  #token(): Token | null {
    const at = this.#cursor.at;
    const c = this.#cursor.next() ?? "";
    switch (c) {
      case "\\":
        return this.#escape(at);
      case "[":
        return readSet(this.#cursor, at);
      case "(":
        return this.#group(at);
      case ")": {
        const open = this.#open.pop();
        if (!open) {
          this.#cursor.invalid(
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
    const interval = /^(\d*)(,?)(\d*)\}/.exec(this.#cursor.rest());
    if (!interval || !this.#canRepeat()) return null;
    const [written, low = "", comma = "", high = ""] = interval;
    if (low === "" && (comma === "" || high === "")) return null;
    this.#cursor.at += written.length;
    const min = low === "" ? 0 : Number(low);
    const max = comma === "" ? min : high === "" ? null : Number(high);
    if (max !== null && max < min) {
      this.#cursor.invalid(`{${written} at column ${at + 1} has its numbers in the wrong order`);
    }
    if ((max ?? min) > MAX_REPEAT) {
      this.#cursor.unsupported(
        `{${written} at column ${at + 1} repeats more than ${MAX_REPEAT} times`,
      );
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
        this.#cursor.invalid(`"${written}" at column ${at + 1} repeats a repetition`);
      }
      if (last?.kind === "close") {
        this.#cursor.invalid(
          `"${written}" at column ${at + 1} repeats a lookaround, which matches no text`,
        );
      }
      this.#cursor.invalid(
        `"${written}" at column ${at + 1} has nothing before it to repeat; escape it (\\${written[0]}) to match it literally`,
      );
    }
    const next = this.#cursor.peek();
    let lazy = false;
    if (next === "?") {
      lazy = true;
      this.#cursor.at++;
    } else if (next === "+") {
      this.#cursor.unsupported(
        `the possessive repetition "${written}+" at column ${at + 1} is not supported; write "${written}" (it may match where a possessive one would not) or use run_shell with \`rg --pcre2\``,
      );
    }
    return { kind: "quantifier", min, max, lazy };
  }

  #group(at: number): Token | null {
    if (this.#cursor.peek() !== "?") return this.#openGroup(at, "capture");
    const rest = this.#cursor.rest().slice(1);
    const name = /^(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest);
    if (name) {
      const groupName = name[1] ?? name[2] ?? "";
      if (this.#names.has(groupName)) {
        this.#cursor.invalid(`the group name "${groupName}" at column ${at + 1} is used twice`);
      }
      this.#names.add(groupName);
      this.#cursor.at += 1 + name[0].length;
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
        this.#cursor.at += 1 + prefix.length;
        return this.#openGroup(at, kind);
      }
    }
    const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (backref) {
      this.#cursor.at += 1 + backref[0].length;
      this.#namedRefs.push({
        at,
        name: backref[1] ?? "",
        ready: this.#closed.has(backref[1] ?? ""),
      });
      return { kind: "named-backref", name: backref[1] ?? "" };
    }
    if (rest.startsWith("#")) {
      const end = this.#cursor.chars.indexOf(")", this.#cursor.at);
      if (end === -1) this.#cursor.invalid(`the comment "(?#" at column ${at + 1} is never closed`);
      this.#cursor.at = end + 1;
      return null;
    }
    return this.#unsupportedGroup(at, rest);
  }

  #unsupportedGroup(at: number, rest: string): never {
    const shown = `(?${rest.slice(0, 3)}`;
    const where = `at column ${at + 1}`;
    if (rest.startsWith(">")) {
      this.#cursor.unsupported(
        `the atomic group "(?>" ${where} is not supported; use a plain group (?:...) instead (it may match where the atomic one would not)`,
      );
    }
    const flags = /^[a-zA-Z]*(?:-[a-zA-Z]*)?[):]/.exec(rest);
    if (flags) {
      this.#cursor.unsupported(
        `the inline flags "(?${flags[0]}" ${where} are not supported; only a leading (?i) is. For a search without case, set case_insensitive: true and drop the flag; for one part only, write its letters as classes such as [Gg][Ee][Tt]`,
      );
    }
    if (/^(?:R|[+-]?\d+|&|P>)/.test(rest)) {
      this.#cursor.unsupported(`the recursion "${shown}" ${where} is not supported`);
    }
    if (rest.startsWith("(")) {
      this.#cursor.unsupported(
        `the conditional group "${shown}" ${where} is not supported; search for each case with |`,
      );
    }
    if (rest.startsWith("|")) {
      this.#cursor.unsupported(
        `the branch-reset group "(?|" ${where} is not supported; use a plain group (?:...) (group numbers then run on across the branches)`,
      );
    }
    this.#cursor.invalid(`"${shown}" ${where} is not a group JavaScript knows`);
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
    const c = this.#cursor.next();
    if (c === undefined) {
      this.#cursor.invalid(
        `it ends with a lone backslash (column ${at + 1}); write \\\\ for a literal backslash`,
      );
    }
    const short = shorthand(c);
    if (short) return { kind: "class", ...short };
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
        this.#cursor.unsupported(
          `\\${c} at column ${at + 1} stands for a line break; ${LINE_BY_LINE}`,
        );
        break;
      case "N":
        return { kind: "any" };
      case "p":
      case "P":
        return { kind: "property", text: property(this.#cursor, c, at) };
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
        this.#cursor.unsupported(`\\${c} at column ${at + 1} is not supported (it is PCRE-only)`);
    }
    if (/[1-9]/.test(c)) {
      let digits = c;
      while (/\d/.test(this.#cursor.peek() ?? "")) digits += this.#cursor.next();
      const group = Number(digits);
      this.#backrefs.push({ at, group, ready: this.#closed.has(group) });
      return { kind: "backref", group };
    }
    const code = codeEscape(this.#cursor, c, at);
    if (code !== null) return { kind: "char", char: code };
    if (/[A-Za-z0-9]/.test(c)) {
      this.#cursor.invalid(
        `\\${c} at column ${at + 1} is not an escape JavaScript knows; write "${c}" for the letter itself, or use a class such as [A-Za-z]`,
      );
    }
    // Any other escaped character stands for itself (\. \( \/ \' \- ...).
    return { kind: "char", char: c };
  }

  #namedBackref(at: number): Token {
    const ref =
      /^(?:<([A-Za-z_][A-Za-z0-9_]*)>|\{([A-Za-z_][A-Za-z0-9_]*)\}|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(
        this.#cursor.rest(),
      );
    if (!ref) this.#cursor.invalid(`\\k at column ${at + 1} must name a group, as in \\k<name>`);
    this.#cursor.at += ref[0].length;
    const name = ref[1] ?? ref[2] ?? ref[3] ?? "";
    this.#namedRefs.push({ at, name, ready: this.#closed.has(name) });
    return { kind: "named-backref", name };
  }

  /** PCRE's \g1, \g{1}, \g{name}; relative ones (\g{-1}) are refused. */
  #gBackref(at: number): Token {
    const ref = /^(?:\{(-?\d+|[A-Za-z_][A-Za-z0-9_]*)\}|(-?\d+))/.exec(this.#cursor.rest());
    if (!ref) this.#cursor.invalid(`\\g at column ${at + 1} must name a group, as in \\g{1}`);
    this.#cursor.at += ref[0].length;
    const target = ref[1] ?? ref[2] ?? "";
    if (target.startsWith("-")) {
      this.#cursor.unsupported(
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
    const end = this.#cursor.rest().indexOf("\\E");
    const text = end === -1 ? this.#cursor.rest() : this.#cursor.rest().slice(0, end);
    const chars = Array.from(text);
    this.#cursor.at += chars.length + (end === -1 ? 0 : 2);
    const last = chars.pop();
    for (const char of chars) this.#tokens.push({ kind: "char", char });
    return last === undefined ? null : { kind: "char", char: last };
  }
}
