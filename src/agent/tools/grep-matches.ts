export const MAX_MATCHES = 100;
const MAX_MATCH_LINE_CHARS = 300;

/** Keeps the first matches for display and counts the rest. */
export class MatchCollector {
  readonly #shown: string[] = [];
  #total = 0;

  constructor(readonly max = MAX_MATCHES) {}

  add(path: string, line: number | string, text: string): void {
    this.#total++;
    if (this.#shown.length >= this.max) return;
    const trimmed = text.replace(/\r$/, "");
    const cut =
      trimmed.length > MAX_MATCH_LINE_CHARS
        ? `${trimmed.slice(0, MAX_MATCH_LINE_CHARS)}... [line cut]`
        : trimmed;
    this.#shown.push(`${path}:${line}:${cut}`);
  }

  get total(): number {
    return this.#total;
  }

  format(noMatch: string): string {
    if (this.#total === 0) return noMatch;
    const more = this.#total - this.#shown.length;
    const tail =
      more > 0 ? `\n[${more} more matches not shown; narrow the pattern, path or include]` : "";
    return this.#shown.join("\n") + tail;
  }
}
