/**
 * Where a pull request review may put inline comments: GitHub accepts a
 * comment only on a line of the diff (an added or context line on the
 * right side, a removed line on the left). This reads the files' patches,
 * and checks each comment the agent proposed against them, so one bad
 * anchor never gets the whole review refused. Pure.
 */

export interface PatchedFile {
  filename: string;
  /** Absent for binary files and very large diffs. */
  patch?: string | undefined;
}

export interface DiffLines {
  right: Map<string, Set<number>>;
  left: Map<string, Set<number>>;
}

export function diffLines(files: readonly PatchedFile[]): DiffLines {
  const right = new Map<string, Set<number>>();
  const left = new Map<string, Set<number>>();
  for (const file of files) {
    const r = new Set<number>();
    const l = new Set<number>();
    let oldLine = 0;
    let newLine = 0;
    for (const line of (file.patch ?? "").split("\n")) {
      const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (hunk) {
        oldLine = Number(hunk[1]);
        newLine = Number(hunk[2]);
        continue;
      }
      if (line.startsWith("\\")) continue; // "\ No newline at end of file"
      if (line.startsWith("+")) r.add(newLine++);
      else if (line.startsWith("-")) l.add(oldLine++);
      else if (oldLine > 0 || newLine > 0) {
        r.add(newLine++);
        l.add(oldLine++);
      }
    }
    right.set(file.filename, r);
    left.set(file.filename, l);
  }
  return { right, left };
}

/**
 * The lines a re-review may comment on: lines of the pull request's diff
 * (the only ones GitHub anchors a comment to) that the changes since the
 * last review also touch. A base merged into the branch puts lines the
 * pull request never changed into the changes since; those are left out.
 * Only the right side: a left-side number means a line of the merge base
 * in one diff and of the last reviewed commit in the other.
 */
export function linesInBoth(pull: DiffLines, since: DiffLines): DiffLines {
  const right = new Map<string, Set<number>>();
  for (const [path, lines] of pull.right) {
    const also = since.right.get(path);
    right.set(path, new Set([...lines].filter((n) => also?.has(n) === true)));
  }
  return { right, left: new Map() };
}

export interface ProposedComment {
  path: string;
  line: number;
  /** For a comment on several lines: the first one. */
  startLine?: number | undefined;
  side?: "RIGHT" | "LEFT" | undefined;
  body: string;
  /** Replacement text for the lines [startLine..line]: rendered as a suggestion block. */
  suggestion?: string | undefined;
}

export interface ReviewComment {
  path: string;
  line: number;
  side: "RIGHT" | "LEFT";
  start_line?: number;
  start_side?: "RIGHT" | "LEFT";
  body: string;
}

export interface CheckedComments {
  inline: ReviewComment[];
  /** Comments whose lines are not in the diff: kept in the review's body instead. */
  outside: ProposedComment[];
}

export function checkComments(
  proposed: readonly ProposedComment[],
  lines: DiffLines,
): CheckedComments {
  const inline: ReviewComment[] = [];
  const outside: ProposedComment[] = [];
  for (const comment of proposed) {
    const side = comment.side ?? "RIGHT";
    const onSide = (side === "RIGHT" ? lines.right : lines.left).get(comment.path);
    const start = comment.startLine !== undefined && comment.startLine < comment.line;
    const fits =
      onSide?.has(comment.line) === true &&
      (!start || rangeInDiff(onSide, comment.startLine ?? comment.line, comment.line));
    // A suggestion replaces lines of the new file: it only makes sense on the right side.
    if (!fits || (comment.suggestion !== undefined && side !== "RIGHT")) {
      outside.push(comment);
      continue;
    }
    inline.push({
      path: comment.path,
      line: comment.line,
      side,
      ...(start ? { start_line: comment.startLine as number, start_side: side } : {}),
      body: renderBody(comment),
    });
  }
  return { inline, outside };
}

function rangeInDiff(lines: Set<number>, from: number, to: number): boolean {
  for (let n = from; n <= to; n++) if (!lines.has(n)) return false;
  return true;
}

function renderBody(comment: ProposedComment): string {
  if (comment.suggestion === undefined) return comment.body.trim();
  const code = comment.suggestion.replace(/\n$/, "");
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${comment.body.trim()}\n\n${fence}suggestion\n${code}\n${fence}`;
}

/** A hunk of one file's patch: its header and the lines it shows on each side. */
interface Hunk {
  header: string;
  right: number[];
  left: number[];
}

function hunksOf(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  for (const part of patch.split(/^(?=@@ )/m)) {
    const header = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(part)?.[0];
    if (!header) continue;
    const lines = diffLines([{ filename: "", patch: part }]);
    hunks.push({
      header,
      right: [...(lines.right.get("") ?? [])],
      left: [...(lines.left.get("") ?? [])],
    });
  }
  return hunks;
}

/** "1-3, 7, 10-12" */
function ranges(numbers: readonly number[]): string {
  const sorted = [...numbers].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}

/**
 * Why GitHub would not anchor `comment` on the diff, said so the agent can
 * move it at once (the file's hunks and the lines each allows); null when it
 * fits. `lines` may be narrower than the patches (a re-review).
 */
export function anchorProblem(
  comment: ProposedComment,
  files: readonly PatchedFile[],
  lines: DiffLines,
): string | null {
  const file = files.find((f) => f.filename === comment.path);
  if (!file) {
    const names = files.map((f) => f.filename);
    const listed = names.slice(0, 30).join(", ") + (names.length > 30 ? ", ..." : "");
    return `${comment.path} is not in this pull request's diff, so no comment can be anchored in it. Files in the diff: ${listed}. Comment on one of those, or say it in your summary`;
  }
  if (!file.patch) {
    return `${comment.path} has no diff GitHub can show (a binary file, or too large), so no comment can be anchored in it; say it in your summary instead`;
  }
  const side = comment.side ?? "RIGHT";
  if (comment.suggestion !== undefined && side !== "RIGHT") {
    return "a suggestion replaces lines of the new file: use side RIGHT (the default) with the new file's line numbers, or drop suggestion";
  }
  const start = comment.startLine ?? comment.line;
  if (start > comment.line) {
    return `start_line ${start} is after line ${comment.line}; start_line is the first line of the range and line the last`;
  }
  const allowed = (side === "RIGHT" ? lines.right : lines.left).get(comment.path) ?? new Set();
  const wanted = Array.from({ length: comment.line - start + 1 }, (_, i) => start + i);
  const hunks = hunksOf(file.patch);
  const inOneHunk = hunks.some((h) =>
    wanted.every((n) => (side === "RIGHT" ? h.right : h.left).includes(n) && allowed.has(n)),
  );
  if (inOneHunk) return null;
  const which = side === "RIGHT" ? "new" : "old";
  const where = start === comment.line ? `line ${comment.line}` : `lines ${start}-${comment.line}`;
  const listed = hunks
    .map((h) => {
      const usable = (side === "RIGHT" ? h.right : h.left).filter((n) => allowed.has(n));
      return `${h.header} (${which} lines ${usable.length > 0 ? ranges(usable) : "none you may use here"})`;
    })
    .join("; ");
  const what =
    start === comment.line
      ? `is not a line of the diff`
      : "are not all lines of one hunk of the diff (a comment's lines must be)";
  return `${where} of ${comment.path} (side ${side}, the ${which} file) ${what}. Its hunks: ${listed}. Move the comment onto ${which} lines listed there (for code near a change, the closest changed or context line), or say it in your summary`;
}
