import { compareStrings } from "../fs/workspace-files.js";

export const MAX_MATCHES = 100;
const MAX_MATCH_LINE_CHARS = 300;

interface Kept {
  path: string;
  line: number;
  text: string;
}

/**
 * Keeps the first matches in path and line order, whatever order they come
 * in (git lists untracked files after tracked ones; files are read side by
 * side), and counts the rest.
 */
export class MatchCollector {
  readonly #kept: Kept[] = [];
  #total = 0;

  constructor(readonly max = MAX_MATCHES) {}

  add(path: string, line: number | string, text: string): void {
    this.#total++;
    const entry = { path, line: Number(line), text };
    const last = this.#kept.at(-1);
    if (this.#kept.length >= this.max && last && compare(entry, last) >= 0) return;
    let low = 0;
    let high = this.#kept.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compare(this.#kept[mid] as Kept, entry) <= 0) low = mid + 1;
      else high = mid;
    }
    this.#kept.splice(low, 0, entry);
    if (this.#kept.length > this.max) this.#kept.pop();
  }

  get total(): number {
    return this.#total;
  }

  format(noMatch: string): string {
    if (this.#total === 0) return noMatch;
    const more = this.#total - this.#kept.length;
    const tail =
      more > 0 ? `\n[${more} more matches not shown; narrow the pattern, path or include]` : "";
    return this.#kept.map(show).join("\n") + tail;
  }
}

function compare(a: Kept, b: Kept): number {
  return compareStrings(a.path, b.path) || a.line - b.line;
}

function show({ path, line, text }: Kept): string {
  const trimmed = text.replace(/\r$/, "");
  const cut =
    trimmed.length > MAX_MATCH_LINE_CHARS
      ? `${trimmed.slice(0, MAX_MATCH_LINE_CHARS)}... [line cut]`
      : trimmed;
  return `${path}:${line}:${cut}`;
}
