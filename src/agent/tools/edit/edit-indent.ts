import { ToolError } from "../define-tool.js";

export interface Reindented {
  text: string;
  /** Said to the model when lines were moved, so it can check the result. */
  note?: string;
}

/**
 * An old_string that begins after the start of its line's indentation puts
 * new_string's first line there, and its other lines at column 0: written
 * against where the model thought old_string began, they can land at the
 * wrong indentation. This puts them where the model meant, or refuses when
 * that cannot be told.
 *
 * One-line old_string:
 * - starting with part of the indentation: the model took it for the whole
 *   line, so the added lines move right by the indentation it missed;
 * - starting right after the indentation: added lines indented at least as
 *   deep are taken as written; shallower ones may be relative to the anchor
 *   or a real dedent (a closing brace), so the edit is refused.
 *
 * Several lines: old_string's later lines match the file, so new_string's
 * are taken as written, unless the first line turns up among them at the
 * indentation it has in old_string rather than in the file (lines inserted
 * before it, written as if it began at column 0).
 */
export function reindentAddedLines(
  text: string,
  start: number,
  oldString: string,
  newString: string,
  line: number,
): Reindented {
  const unchanged = { text: newString };
  if (!newString.includes("\n") || oldString.trim() === "") return unchanged;
  const missed = text.slice(text.lastIndexOf("\n", start - 1) + 1, start);
  if (missed === "" || /[^ \t]/.test(missed)) return unchanged;
  const [first = "", ...added] = newString.split("\n");
  const shown = added.filter((l) => l.trim() !== "");
  if (shown.length === 0) return unchanged;
  const unit = describeIndent(missed);
  const oldIndent = indentOf(oldString);
  const unclear = new ToolError(
    `old_string starts ${oldIndent === "" ? "after" : "inside"} the indentation of line ${line} (${unit} before it), so new_string's lines after the first may be meant relative to old_string or exactly as written. Start old_string at the beginning of line ${line}, including its indentation, and write every line of new_string with its full indentation as it should appear in the file.`,
  );
  if (oldString.includes("\n")) {
    const anchor = (oldString.split("\n")[0] ?? "").trim();
    const echoed = shown.some((l) => l.trim() === anchor && indentOf(l) === oldIndent);
    if (anchor.length >= 3 && echoed) throw unclear;
    return unchanged;
  }
  if (oldIndent !== "") {
    const moved = added.map((l) => (l.trim() === "" ? l : missed + l));
    return {
      text: [first, ...moved].join("\n"),
      note: `old_string began inside the indentation of line ${line} (${unit} before it), so the ${shown.length} added line${shown.length === 1 ? " was" : "s were"} indented by ${unit} more to line up with it; check the diff`,
    };
  }
  const shallowest = Math.min(...shown.map((l) => indentOf(l).length));
  if (shallowest >= missed.length) return unchanged;
  throw unclear;
}

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

function describeIndent(indent: string): string {
  const tabs = indent.split("\t").length - 1;
  const spaces = indent.length - tabs;
  const parts: string[] = [];
  if (tabs > 0) parts.push(`${tabs} tab${tabs === 1 ? "" : "s"}`);
  if (spaces > 0) parts.push(`${spaces} space${spaces === 1 ? "" : "s"}`);
  return parts.join(" and ");
}
