/**
 * Editing one value in package.json without re-serializing it: the new
 * spec replaces exactly the old string's characters, so indentation, key
 * order, line endings and the trailing newline stay as the maintainer had
 * them, and the diff is one line per bump.
 */

export interface Span {
  start: number;
  end: number;
}

export class JsonEditError extends Error {
  override name = "JsonEditError";
}

/** A dependency's spec, or with section `packageManager` the top-level field of that name. */
export function setDependencySpec(
  text: string,
  section: string,
  name: string,
  spec: string,
): string {
  const path = section === "packageManager" ? [section] : [section, name];
  const edited = setJsonString(text, path, spec);
  if (edited === undefined) throw new JsonEditError(`"${section}" has no "${name}" to update`);
  return edited;
}

/**
 * The string at `path` replaced by `value`, or undefined when nothing is
 * written there; a value there that is not a string is an error.
 */
export function setJsonString(
  text: string,
  path: readonly string[],
  value: string,
): string | undefined {
  const span = findValueSpan(text, path);
  if (!span) return undefined;
  if (text[span.start] !== '"') throw new JsonEditError(`"${path.join(".")}" is not a string`);
  return `${text.slice(0, span.start)}${JSON.stringify(value)}${text.slice(span.end)}`;
}

/** Where the value at `path` (object keys from the top) is written, or undefined. */
export function findValueSpan(text: string, path: readonly string[]): Span | undefined {
  let i = 0;
  const fail = (): never => {
    throw new JsonEditError(`package.json is not valid JSON near character ${i}`);
  };
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail();
    i++;
  };
  const readString = (): string => {
    skipSpace();
    const start = i;
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipValue = (): void => {
    skipSpace();
    const open = text[i];
    if (open === '"') {
      readString();
      return;
    }
    if (open === "{" || open === "[") {
      const close = open === "{" ? "}" : "]";
      i++;
      skipSpace();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (open === "{") {
          readString();
          expect(":");
        }
        skipValue();
        skipSpace();
        if (text[i] === ",") i++;
        else if (text[i] === close) {
          i++;
          return;
        } else fail();
      }
    }
    const start = i;
    while (i < text.length && !/[\s,}\]]/.test(text.charAt(i))) i++;
    if (i === start) fail();
  };
  const descend = (depth: number): Span | undefined => {
    skipSpace();
    if (depth === path.length) {
      const start = i;
      skipValue();
      return { start, end: i };
    }
    if (text[i] !== "{") return undefined;
    i++;
    skipSpace();
    if (text[i] === "}") return undefined;
    for (;;) {
      const key = readString();
      expect(":");
      if (key === path[depth]) return descend(depth + 1);
      skipValue();
      skipSpace();
      if (text[i] !== ",") return undefined;
      i++;
    }
  };
  return descend(0);
}
