import { z } from "zod";
import type { ProposedComment } from "../github/review-diff.js";

/**
 * The agent's review, read from its final answer: the prose is the review's
 * summary, and a fenced `review-comments` block holds the inline comments
 * as JSON. What cannot be read is kept in the summary, never dropped.
 */

export const REVIEW_FORMAT = [
  "Reply with your review: a short summary (what the change does, what is good, what must change), then the inline comments in one fenced block, like this:",
  "```review-comments",
  '[{"path": "src/a.js", "line": 12, "body": "Why this matters."},',
  ' {"path": "src/a.js", "start_line": 20, "line": 21, "body": "Simpler:", "suggestion": "replacement for lines 20-21"}]',
  "```",
  "`line` (and `start_line`) are line numbers in the new version of the file, on lines the diff shows (added or context lines). Use `suggestion` only for a small, complete replacement of exactly those lines. Write `[]` when there is nothing to say inline.",
].join("\n");

const commentSchema = z.object({
  path: z.string().min(1),
  line: z.number().int().positive(),
  start_line: z.number().int().positive().optional(),
  side: z.enum(["RIGHT", "LEFT"]).optional(),
  body: z.string().default(""),
  suggestion: z.string().optional(),
});

export interface ParsedReview {
  summary: string;
  comments: ProposedComment[];
  /** Set when the block was there but could not be read. */
  problem?: string;
}

export function parseReview(finalText: string): ParsedReview {
  const block = /(`{3,})review-comments[^\n]*\n([\s\S]*?)\n\1/.exec(finalText);
  if (!block) return { summary: finalText.trim(), comments: [] };
  const summary = finalText.replace(block[0], "").trim();
  let json: unknown;
  try {
    json = JSON.parse(block[2] ?? "");
  } catch (error) {
    return { summary: finalText.trim(), comments: [], problem: `not JSON (${String(error)})` };
  }
  const list = z.array(z.unknown()).safeParse(json);
  if (!list.success) return { summary: finalText.trim(), comments: [], problem: "not a list" };
  const comments: ProposedComment[] = [];
  for (const item of list.data) {
    const parsed = commentSchema.safeParse(item);
    if (!parsed.success) continue;
    const c = parsed.data;
    comments.push({
      path: c.path.replace(/^\.?\//, ""),
      line: c.line,
      ...(c.start_line !== undefined ? { startLine: c.start_line } : {}),
      ...(c.side ? { side: c.side } : {}),
      body: c.body,
      ...(c.suggestion !== undefined ? { suggestion: c.suggestion } : {}),
    });
  }
  return { summary, comments };
}
