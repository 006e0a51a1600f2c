import { ToolError } from "../define-tool.js";
import { shellQuote, toLf } from "../fs/text-file.js";
import { lfView, toOriginalIndex, withRegionEndings } from "./edit-endings.js";
import { reindentAddedLines } from "./edit-indent.js";
import { indentationProblem, indentRuleFor } from "./edit-indent-guard.js";
import { explainNotFound } from "./edit-near-miss.js";
import {
  allLinesPrefixed,
  countPrefixedLines,
  firstPrefix,
  stripPrefixes,
} from "./edit-prefixes.js";

export interface EditRequest {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

export interface EditPlan {
  /** The whole new file text. */
  updated: string;
  count: number;
  /** Adjustments made to the request, for the model to check in the diff. */
  notes: string[];
}

const MAX_LISTED_LINES = 10;

/**
 * Works out an edit on the text as read_file showed it (LF endings, no
 * line-number prefixes), or refuses it with what to do instead. Pure: the
 * caller reads and writes the file.
 */
export function planEdit(original: string, request: EditRequest, relative: string): EditPlan {
  const view = lfView(original);
  // A CR-only file is shown split at its CRs: a CR the model wrote is one of those line breaks.
  const shown = view.crOnly
    ? {
        ...request,
        oldString: request.oldString.replace(/\r\n?/g, "\n"),
        newString: request.newString.replace(/\r\n?/g, "\n"),
      }
    : request;
  const { oldString, newString, notes } = asShown(view.text, shown, relative);
  const positions = findAll(view.text, oldString);
  if (positions.length === 0) {
    const message = explainNotFound(view.text, oldString, newString, relative);
    throw new ToolError(
      view.crOnly
        ? `${message}\n(${relative} uses CR-only line endings: read_file shows its lines split at each \\r, and old_string is matched against those lines.)`
        : message,
    );
  }
  const overlapping =
    positions.length === 1 && view.text.indexOf(oldString, (positions[0] ?? 0) + 1) !== -1;
  if ((positions.length > 1 || overlapping) && !request.replaceAll) {
    throw new ToolError(ambiguous(view.text, oldString, relative));
  }
  const lines = lineNumbers(view.text, positions);
  const repeated = positions.findIndex((at) =>
    insideNewString(view.text, at, oldString, newString),
  );
  if (repeated !== -1) {
    throw new ToolError(
      `old_string matches at line ${lines[repeated]} only as part of new_string, which is already there, so this edit looks made already and repeating it would apply it twice. Call read_file to check; if it really must change again, give old_string more surrounding text so it no longer matches inside new_string.`,
    );
  }
  const rule = indentRuleFor(relative);
  if (rule) {
    for (const at of positions) {
      const problem = indentationProblem(rule, relative, view.text, at, newString);
      if (problem) throw new ToolError(problem);
    }
  }
  let updated = "";
  let from = 0;
  positions.forEach((at, i) => {
    const reindented = reindentAddedLines(view.text, at, oldString, newString, lines[i] ?? 0);
    if (reindented.note && !notes.includes(reindented.note)) notes.push(reindented.note);
    const start = toOriginalIndex(view, at);
    updated += original.slice(from, start);
    updated += withRegionEndings(view, at, at + oldString.length, reindented.text);
    from = toOriginalIndex(view, at + oldString.length);
  });
  updated += original.slice(from);
  return { updated, count: positions.length, notes };
}

/**
 * The two strings as they would read in read_file's output: LF endings and,
 * when every line of old_string carries it, no line-number prefix.
 */
function asShown(
  text: string,
  request: EditRequest,
  relative: string,
): { oldString: string; newString: string; notes: string[] } {
  const notes: string[] = [];
  let oldString = toLf(request.oldString);
  let newString = toLf(request.newString);
  if (!text.includes(oldString) && allLinesPrefixed(oldString)) {
    oldString = stripPrefixes(oldString);
    newString = stripPrefixes(newString);
    notes.push(
      "read_file's line-number prefixes (`   N | `) were removed from old_string and new_string; they are not part of the file",
    );
  } else if (countPrefixedLines(oldString) === 0 && countPrefixedLines(newString) > 0) {
    throw new ToolError(
      `new_string has read_file's line-number prefixes (e.g. \`${firstPrefix(newString)}\`) but old_string has none, so the numbers would be written into ${relative}. Remove the \`   N | \` prefix from every line of new_string and call edit_file again.`,
    );
  }
  if (oldString === "") {
    throw new ToolError(
      "old_string holds nothing but read_file's line-number prefixes; copy the text after the ` | ` as well",
    );
  }
  if (escapedLineBreaks(oldString, newString)) {
    throw new ToolError(
      `old_string spans ${oldString.split("\n").length} lines but new_string is one line holding \`\\n\` escapes, so they would be written into ${relative} as the two characters \\ and n, not as line breaks. Send new_string with real line breaks. (If the file should really hold \`\\n\` on one line, replace the lines one at a time, or use write_file.)`,
    );
  }
  if (oldString === newString) {
    throw new ToolError(
      request.oldString === request.newString
        ? "old_string and new_string are identical, so the edit would change nothing; put the new text in new_string"
        : `old_string and new_string differ only in line endings or read_file's prefixes, which edit_file keeps as the file has them, so the edit would change nothing. To change line endings use run_shell (e.g. \`sed -i 's/\\r$//' ${shellQuote(relative)}\`).`,
    );
  }
  return { oldString, newString, notes };
}

/**
 * A multi-line old_string replaced by one line carrying at least as many
 * `\n` escapes as old_string has line breaks: the model escaped its line
 * breaks in one string only (as with line-number prefixes in one string).
 */
function escapedLineBreaks(oldString: string, newString: string): boolean {
  const breaks = oldString.split("\n").length - 1;
  if (breaks === 0 || newString.includes("\n")) return false;
  return newString.split("\\n").length - 1 >= breaks;
}

/**
 * Whether the match at `at` lies within a copy of new_string (an edit sent
 * twice). Adding only blank lines or spaces around old_string does not count:
 * the file may well have them already.
 */
function insideNewString(text: string, at: number, oldString: string, newString: string): boolean {
  if (newString.split(oldString).join("").trim() === "") return false;
  for (let k = newString.indexOf(oldString); k !== -1; k = newString.indexOf(oldString, k + 1)) {
    if (at - k >= 0 && text.startsWith(newString, at - k)) return true;
  }
  return false;
}

function ambiguous(text: string, oldString: string, relative: string): string {
  const all: number[] = [];
  for (
    let at = text.indexOf(oldString);
    at !== -1 && all.length <= 1000;
    at = text.indexOf(oldString, at + 1)
  ) {
    all.push(at);
  }
  const lines = lineNumbers(text, all.slice(0, MAX_LISTED_LINES));
  const more = all.length > MAX_LISTED_LINES ? ", ..." : "";
  return `found ${all.length} matches of old_string in ${relative} (at lines ${lines.join(", ")}${more}); add surrounding lines to old_string (and new_string) to make it unique, or set replace_all to true to change every one`;
}

/** Non-overlapping occurrences, left to right, as replace_all changes them. */
function findAll(text: string, needle: string): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    positions.push(at);
  }
  return positions;
}

/** 1-based line numbers of ascending positions, in one pass. */
function lineNumbers(text: string, positions: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const at of positions) {
    for (let i = text.indexOf("\n", scanned); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) {
      line++;
      scanned = i + 1;
    }
    out.push(line);
  }
  return out;
}
