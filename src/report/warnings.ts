import { codeBlock } from "../github/markdown.js";

const MAX_WARNING_CHARS = 1_000;

/**
 * What went wrong without stopping a job (its tool not fetched, a package
 * not put back), as its steps said it, for the thread's answer and the pull
 * request's body. In a code block: a warning can quote command output,
 * which is the repository's text, and must not become Markdown there.
 */
export function renderWarnings(warnings: readonly string[], heading = "**Warnings**"): string {
  const text = warnings
    .map((w) => (w.length > MAX_WARNING_CHARS ? `${w.slice(0, MAX_WARNING_CHARS - 1)}…` : w))
    .join("\n\n");
  return `${heading}\n\n${codeBlock(text, "text")}`;
}
