/**
 * Reading one option word the way getopt does: `-oFILE` is `-o FILE`,
 * `-vtDIR` is `-v -t DIR`, `--output=FILE` is `--output FILE`. Without this,
 * a value glued to its option slips past every check of that option.
 */

interface OptionWord {
  /** The option that takes a value (`-t`, `--output`), or the word itself when none does. */
  name: string;
  /** The value written in the same word; undefined when it is the next word (or there is none). */
  glued: string | undefined;
  /** True when `name` is one of the options the caller says take a value. */
  takesValue: boolean;
}

/** A value that starts like a path: absolute, home-relative or parent-relative. */
const PATH_LIKE = /^(\/|~|\.\.(\/|$))/;

/**
 * Splits an option word (`-x...` or `--x...`, not `-` or `--`) given the
 * options that take a value. In a cluster of short options the first one
 * that takes a value owns the rest of the word.
 */
export function splitOption(word: string, valued: ReadonlySet<string>): OptionWord {
  if (word.startsWith("--")) {
    const equals = word.indexOf("=");
    const name = equals < 0 ? word : word.slice(0, equals);
    const glued = equals < 0 ? undefined : word.slice(equals + 1);
    return { name, glued, takesValue: valued.has(name) };
  }
  for (let i = 1; i < word.length; i += 1) {
    const letter = word[i] ?? "";
    // getopt stops at a character that is no option letter; nothing after it is ours to read.
    if (!/[A-Za-z0-9]/.test(letter)) break;
    const name = `-${letter}`;
    if (valued.has(name)) {
      const rest = word.slice(i + 1);
      return { name, glued: rest === "" ? undefined : rest, takesValue: true };
    }
  }
  return { name: word, glued: undefined, takesValue: false };
}

/**
 * For an option word no known option claims (`-I../include`, `-coverprofile=/tmp/x`):
 * the part that reads like a path, if any, since an unknown option may take it as its value.
 */
export function pathLikeTail(word: string): string | undefined {
  for (let i = 2; i < word.length; i += 1) {
    const tail = word.slice(i);
    if (PATH_LIKE.test(tail)) return tail;
  }
  return undefined;
}
