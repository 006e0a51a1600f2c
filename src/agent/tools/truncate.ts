import { StringDecoder } from "node:string_decoder";

/** Default cap for one tool result, in characters. */
export const MAX_OUTPUT_CHARS = 50_000;

function cutNote(count: number): string {
  return `\n[... ${count} characters cut ...]\n`;
}

/**
 * Caps a tool result, keeping its head and tail: the start of an output says
 * what ran and the end usually holds the error or the summary, so both matter
 * more than the middle.
 */
export function truncateOutput(text: string, max = MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max / 2);
  const tail = max - head;
  const cut = text.length - head - tail;
  return text.slice(0, head) + cutNote(cut) + (tail > 0 ? text.slice(-tail) : "");
}

/**
 * Collects a stream's output with bounded memory: the first half of the cap is
 * kept as it arrives and the second half is a rolling window over the end, so
 * a command printing gigabytes costs no more than one that prints the cap.
 */
export class HeadTailBuffer {
  readonly #headMax: number;
  readonly #tailMax: number;
  readonly #decoder = new StringDecoder("utf8");
  #head = "";
  #tail = "";
  #cut = 0;

  constructor(max: number) {
    this.#headMax = Math.ceil(max / 2);
    this.#tailMax = max - this.#headMax;
  }

  push(chunk: Buffer | string): void {
    let text = typeof chunk === "string" ? chunk : this.#decoder.write(chunk);
    const room = this.#headMax - this.#head.length;
    if (room > 0) {
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.#tail += text;
    const excess = this.#tail.length - this.#tailMax;
    if (excess > 0) {
      this.#cut += excess;
      this.#tail = this.#tail.slice(excess);
    }
  }

  /** Characters dropped from the middle so far. */
  get cut(): number {
    return this.#cut;
  }

  toString(): string {
    const rest = this.#decoder.end();
    if (rest) this.push(rest);
    return this.#cut > 0 ? this.#head + cutNote(this.#cut) + this.#tail : this.#head + this.#tail;
  }
}
