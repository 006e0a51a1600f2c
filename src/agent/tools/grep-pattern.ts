/**
 * git grep -E speaks POSIX extended regular expressions, where `\d` is not a
 * digit class; models write it constantly, so it is rewritten to `[0-9]`.
 * Everything else passes through unchanged (glibc already knows \s, \w, \b).
 */
export function toPosixRegex(pattern: string): string {
  let out = "";
  let inBracket = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const next = pattern[i + 1];
    if (inBracket) {
      if (c === "[" && (next === ":" || next === "." || next === "=")) {
        const end = pattern.indexOf(`${next}]`, i + 2);
        if (end !== -1) {
          out += pattern.slice(i, end + 2);
          i = end + 1;
          continue;
        }
      }
      if (c === "\\" && next === "d") {
        out += "0-9";
        i++;
        continue;
      }
      if (c === "]") inBracket = false;
      out += c;
      continue;
    }
    if (c === "\\" && next !== undefined) {
      out += next === "d" ? "[0-9]" : next === "D" ? "[^0-9]" : c + next;
      i++;
      continue;
    }
    if (c === "[") {
      inBracket = true;
      out += c;
      // A "]" right after "[" or "[^" is a literal member, not the end.
      if (next === "^") {
        out += next;
        i++;
      }
      if (pattern[i + 1] === "]") {
        out += "]";
        i++;
      }
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * Expands shell-style braces ("*.{ts,tsx}") into separate globs, because git
 * pathspecs do not support them. Nested braces are expanded recursively.
 */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf("{");
  if (open === -1) return [glob];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      if (commas.length === 0) return [glob];
      const bounds = [open, ...commas, i];
      const head = glob.slice(0, open);
      const tail = glob.slice(i + 1);
      const results: string[] = [];
      for (let k = 0; k + 1 < bounds.length; k++) {
        const option = glob.slice((bounds[k] ?? 0) + 1, bounds[k + 1]);
        results.push(...expandBraces(head + option + tail));
      }
      return results;
    } else if (c === "," && depth === 1) commas.push(i);
  }
  return [glob];
}
