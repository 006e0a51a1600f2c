/**
 * A shell line cut into its simple commands and the operators between them,
 * enough to tell which programs ran and whether the line's exit status is
 * theirs. Not a shell parser (the policy has the real one, which is async):
 * quotes, escapes, `$(...)`, comments and heredoc bodies are honoured, and
 * anything stranger only makes a command look like a word it is not.
 */

type Operator = "&&" | "||" | ";" | "|" | "&";

export interface CommandPart {
  words: string[];
  /** The operator after this command; absent on the last one. */
  next?: Operator;
}

export function splitShellCommand(text: string): CommandPart[] {
  const source = dropHeredocBodies(text);
  const parts: CommandPart[] = [];
  let words: string[] = [];
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endPart = (next: Operator) => {
    endWord();
    // `a &&\n b`: the newline after an operator does not replace it.
    if (words.length > 0) parts.push({ words, next });
    words = [];
  };
  for (let at = 0; at < source.length; at++) {
    const char = source[at] ?? "";
    const after = source[at + 1] ?? "";
    if (char === "\\") {
      if (after !== "\n") word = (word ?? "") + after;
      at++;
    } else if (char === "'" || char === '"' || char === "`") {
      const end = closingQuote(source, at);
      word = (word ?? "") + quotedText(source.slice(at + 1, end), char);
      at = end;
    } else if (char === "$" && after === "(") {
      const end = closingParen(source, at + 1);
      word = (word ?? "") + source.slice(at, end + 1);
      at = end;
    } else if (char === "#" && word === null) {
      at = lineEnd(source, at) - 1;
    } else if (char === "\n" || char === ";") {
      endPart(";");
    } else if (char === "|") {
      endPart(after === "|" ? "||" : "|");
      if (after === "|" || after === "&") at++;
    } else if (char === "&" && after === "&") {
      endPart("&&");
      at++;
    } else if (char === "&" && !isRedirect(source, at)) {
      endPart("&");
    } else if (/\s/.test(char) || char === "(" || char === ")") {
      endWord();
    } else {
      word = (word ?? "") + char;
    }
  }
  endWord();
  const last = parts.at(-1);
  if (words.length > 0) parts.push({ words });
  // A line ending in `;` or a newline ends there; one ending in `&` runs in the background.
  else if (last?.next === ";") parts[parts.length - 1] = { words: last.words };
  return parts;
}

/** `2>&1`, `>&2`, `&>log`: the ampersand of a redirection, not a background job. */
function isRedirect(text: string, at: number): boolean {
  const before = text[at - 1];
  return before === ">" || before === "<" || text[at + 1] === ">";
}

function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === "\\" && quote !== "'") at++;
    else if (text[at] === quote) return at;
  }
  return text.length;
}

function quotedText(text: string, quote: string): string {
  return quote === "'" ? text : text.replace(/\\(.)/g, "$1");
}

function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    if (text[at] === "(") depth++;
    else if (text[at] === ")" && --depth === 0) return at;
  }
  return text.length;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end;
}

/** A heredoc's lines are data for the command, not commands (`cat > x <<'EOF'`). */
function dropHeredocBodies(text: string): string {
  const kept: string[] = [];
  let delimiter: string | undefined;
  for (const line of text.split("\n")) {
    if (delimiter !== undefined) {
      if (line.trim() === delimiter) delimiter = undefined;
      continue;
    }
    kept.push(line);
    delimiter = /(?<!<)<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/.exec(line)?.[2];
  }
  return kept.join("\n");
}
