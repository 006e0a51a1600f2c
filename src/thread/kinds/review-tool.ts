import { readFile } from "node:fs/promises";
import { type AnyTool, defineTool, ToolError } from "../../agent/tools/define-tool.js";
import { resolveInWorkspace } from "../../agent/tools/fs/paths.js";
import { commentableLines, type ReviewScope } from "../../github/pull-review.js";
import { anchorProblem, type ProposedComment } from "../../github/review-diff.js";
import * as z from "../../zod.js";

export const REVIEW_TOOL = "add_review_comment";

/** Built when a review makes its tool: the module loads with every job. */
const reviewInput = z.onFirstUse(() =>
  z.object({
    path: z
      .string()
      .check(
        z.minLength(1),
        z.describe(
          "The file, as the diff names it (relative to the repository root), e.g. src/app.js",
        ),
      ),
    line: z
      .number()
      .check(
        z.int(),
        z.positive(),
        z.describe(
          "The line the comment is on (the last line, for several): a line number of the new file that the diff shows (an added or context line); with side LEFT, of the old file (a removed line)",
        ),
      ),
    start_line: z
      .optional(z.number().check(z.int(), z.positive()))
      .check(z.describe("For a comment on several lines: the first of them (same hunk as line)")),
    side: z
      .optional(
        z.pipe(
          z.transform((value) => (typeof value === "string" ? value.toUpperCase() : value)),
          z.enum(["RIGHT", "LEFT"]),
        ),
      )
      .check(z.describe("RIGHT (default): line numbers of the new file; LEFT: of the old file")),
    body: z
      .string()
      .check(
        z.minLength(1),
        z.describe("The comment, in Markdown: what is wrong and why it matters"),
      ),
    suggestion: z
      .optional(z.string())
      .check(
        z.describe(
          "Replacement text for exactly the lines start_line..line (or line) of the new file, without any line around them; GitHub offers it as a one-click change",
        ),
      ),
  }),
);

export interface ReviewCommentTool {
  tool: AnyTool;
  /** The comments accepted so far, in the order they were made. */
  comments(): ProposedComment[];
}

/**
 * The review's inline comments as a tool: each call is checked against the
 * diff when it is made (a line outside it is refused with the file's hunks,
 * so the agent can move it at once), and a suggestion against the lines it
 * replaces. The accepted comments go up with the review; the agent's final
 * answer is the review's summary.
 */
export function createReviewCommentTool(scope: ReviewScope): ReviewCommentTool {
  const lines = commentableLines(scope);
  const accepted: ProposedComment[] = [];
  const tool = defineTool({
    name: REVIEW_TOOL,
    kind: "report",
    description: [
      "Adds one inline comment to your review of this pull request, on a line of its diff (an added or context line of the new file by default).",
      "Call it once per comment, then end with the review's summary as your answer; the summary and every comment added here are posted together as one review.",
      "A line outside the diff is refused with the file's hunks, so you can move the comment.",
      "With suggestion, GitHub offers the replacement of exactly the lines start_line..line as a one-click change.",
    ].join(" "),
    input: reviewInput(),
    summarize: (args) => `${REVIEW_TOOL} ${args.path}:${args.line}`,
    async run(args, ctx) {
      const comment: ProposedComment = {
        path: diffPath(args.path, scope),
        line: args.line,
        ...(args.start_line !== undefined && args.start_line !== args.line
          ? { startLine: args.start_line }
          : {}),
        ...(args.side ? { side: args.side } : {}),
        body: args.body,
        ...(args.suggestion !== undefined ? { suggestion: args.suggestion } : {}),
      };
      const problem = anchorProblem(comment, scope.pullFiles, lines);
      if (problem) throw new ToolError(`${problem}. Nothing was added.`);
      if (comment.suggestion !== undefined) {
        const wrong = await suggestionProblem(ctx.root, comment);
        if (wrong) throw new ToolError(`${wrong}. Nothing was added.`);
      }
      accepted.push(comment);
      const where =
        comment.startLine === undefined
          ? `line ${comment.line}`
          : `lines ${comment.startLine}-${comment.line}`;
      return `Added a comment on ${comment.path} ${where} (${accepted.length} so far). It is posted with the review when you finish; your final answer is the review's summary.`;
    },
  });
  return { tool, comments: () => [...accepted] };
}

/** "./src/a.js", "/src/a.js", "b/src/a.js" (a diff header's): the diff's own name when one of them is it. */
function diffPath(written: string, scope: ReviewScope): string {
  const names = new Set(scope.pullFiles.map((f) => f.filename));
  const candidates = [
    written,
    written.replace(/^\.?\/+/, ""),
    written.replace(/^[ab]\//, ""),
    written.trim(),
  ];
  return candidates.find((name) => names.has(name)) ?? candidates[1] ?? written;
}

/**
 * A suggestion replaces exactly the lines it names. It must change them,
 * and must not repeat the line just before or after the range (which would
 * then appear twice once applied): the usual slip of a suggestion written
 * with its context.
 */
async function suggestionProblem(root: string, comment: ProposedComment): Promise<string | null> {
  const text = await resolveInWorkspace(root, comment.path)
    .then((path) => readFile(path.absolute, "utf8"))
    .catch(() => null);
  if (text === null) return null;
  const fileLines = text.replace(/\r\n/g, "\n").split("\n");
  if (fileLines.at(-1) === "") fileLines.pop();
  const start = comment.startLine ?? comment.line;
  if (comment.line > fileLines.length) {
    return `${comment.path} has ${fileLines.length} lines in this pull request's head, so line ${comment.line} does not exist`;
  }
  const replaced = fileLines.slice(start - 1, comment.line);
  const suggested = (comment.suggestion ?? "")
    .replace(/\r\n/g, "\n")
    .replace(/\n$/, "")
    .split("\n");
  const range = start === comment.line ? `line ${start}` : `lines ${start}-${comment.line}`;
  if (suggested.join("\n") === replaced.join("\n")) {
    return `the suggestion is exactly what ${range} already hold, so it would change nothing; write the replacement, or drop suggestion`;
  }
  // A neighbour repeated by a suggestion longer than its range is context; so is
  // any repeated line with real content (a lone "}" may well be meant).
  const repeats = (neighbour: string | undefined, line: string | undefined) =>
    neighbour !== undefined &&
    neighbour.trim() !== "" &&
    line === neighbour &&
    (suggested.length > replaced.length || neighbour.trim().length >= 6);
  const before = fileLines[start - 2];
  if (repeats(before, suggested[0])) {
    return `the suggestion starts with line ${start - 1} (\`${before?.trim()}\`), which it does not replace, so that line would appear twice. A suggestion replaces exactly ${range}: drop that line from it, or set start_line to ${start - 1}`;
  }
  const after = fileLines[comment.line];
  if (repeats(after, suggested.at(-1))) {
    return `the suggestion ends with line ${comment.line + 1} (\`${after?.trim()}\`), which it does not replace, so that line would appear twice. A suggestion replaces exactly ${range}: drop that line from it, or set line to ${comment.line + 1}`;
  }
  return null;
}
