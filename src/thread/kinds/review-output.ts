import type { ProposedComment } from "../../github/review-diff.js";
import * as z from "../../zod.js";
import { REVIEW_TOOL } from "./review-tool.js";

/**
 * The agent's review: inline comments come through the add_review_comment
 * tool (review-tool.ts), and the final answer is the review's summary. A
 * model that writes its comments as JSON in the answer instead (a
 * `review-comments` or `json` block: a list, or an object with a `comments`
 * list) still gets them posted; what cannot be read stays in the summary,
 * never dropped.
 */

export const REVIEW_FORMAT = [
  `Put each inline comment on the code with the ${REVIEW_TOOL} tool: path, line (a line of the new file that the diff shows: an added or context line), optionally start_line for several lines, body, and suggestion for a small, complete replacement of exactly those lines.`,
  "If it refuses a line, move the comment to a line it names.",
  "When you are done, answer with the review's summary (what the change does, what is good, what must change); it is posted as one review together with your comments.",
].join(" ");

/** Read only from a review's answer. */
const commentSchema = z.onFirstUse(() =>
  z.object({
    path: z.string().check(z.minLength(1)),
    line: z.number().check(z.int(), z.positive()),
    start_line: z.optional(z.number().check(z.int(), z.positive())),
    side: z.optional(z.enum(["RIGHT", "LEFT"])),
    body: z._default(z.string(), ""),
    suggestion: z.optional(z.string()),
  }),
);

export interface ParsedReview {
  summary: string;
  comments: ProposedComment[];
  /** Set when a block of comments was there but could not be read. */
  problem?: string;
}

const BLOCK = /(`{3,})(review-comments|json)[^\n]*\n([\s\S]*?)\n\1/g;

export function parseReview(finalText: string): ParsedReview {
  for (const block of finalText.matchAll(BLOCK)) {
    const named = block[2] === "review-comments";
    let json: unknown;
    try {
      json = JSON.parse(block[3] ?? "");
    } catch (error) {
      if (!named) continue;
      return { summary: finalText.trim(), comments: [], problem: `not JSON (${String(error)})` };
    }
    const list = commentList(json);
    if (!list) {
      if (!named) continue;
      return { summary: finalText.trim(), comments: [], problem: "not a list" };
    }
    const comments = list.flatMap((item) => {
      const parsed = commentSchema().safeParse(item);
      return parsed.success ? [toComment(parsed.data)] : [];
    });
    // A json block of something else (an example in the summary) is summary.
    if (!named && comments.length === 0) continue;
    return { summary: finalText.replace(block[0], "").trim(), comments };
  }
  return { summary: finalText.trim(), comments: [] };
}

function commentList(json: unknown): unknown[] | null {
  if (Array.isArray(json)) return json;
  const wrapped = z.object({ comments: z.array(z.unknown()) }).safeParse(json);
  return wrapped.success ? wrapped.data.comments : null;
}

function toComment(c: z.infer<ReturnType<typeof commentSchema>>): ProposedComment {
  return {
    path: c.path.replace(/^\.?\//, ""),
    line: c.line,
    ...(c.start_line !== undefined ? { startLine: c.start_line } : {}),
    ...(c.side ? { side: c.side } : {}),
    body: c.body,
    ...(c.suggestion !== undefined ? { suggestion: c.suggestion } : {}),
  };
}
