/** Plain-text wrapping for commit message bodies. Pure. */

/** Wraps prose and list items at `width`; code blocks and indented lines stay as they are. */
export function wrapText(text: string, width = 72): string {
  const out: string[] = [];
  let inFence = false;
  let item: { indent: string; words: string[] } | null = null;
  const flush = () => {
    if (item) out.push(...wrapWords(item.words, width, item.indent));
    item = null;
  };
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      flush();
      inFence = !inFence;
      out.push(line.trimEnd());
      continue;
    }
    if (inFence || /^( {4}|\t)/.test(line)) {
      flush();
      out.push(line.trimEnd());
      continue;
    }
    if (line.trim() === "") {
      flush();
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
      continue;
    }
    const marker = /^(\s*(?:[-*+]|\d+[.)])\s+)/.exec(line);
    if (marker || !item) {
      flush();
      const lead = marker?.[1] ?? "";
      item = {
        indent: " ".repeat(lead.length),
        words: [lead.trim(), ...line.slice(lead.length).split(/\s+/)],
      };
      item.words = item.words.filter(Boolean);
    } else {
      item.words.push(...line.trim().split(/\s+/));
    }
  }
  flush();
  while (out[out.length - 1] === "") out.pop();
  return out.join("\n");
}

function wrapWords(words: string[], width: number, indent: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (candidate.length > width - (lines.length > 0 ? indent.length : 0) && current) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) lines.push(current);
  return lines.map((line, i) => (i > 0 ? indent + line : line));
}
