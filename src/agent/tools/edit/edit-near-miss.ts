import { advice, canonical, describeCause, LABELS, TRANSFORMS } from "./edit-causes.js";
import { closestRegion, describeDifference, lineAgrees } from "./edit-closest.js";
import { countPrefixedLines, firstPrefix } from "./edit-prefixes.js";

/** Markers the tools add to what they show; none of them is in any file. */
const TRUNCATION_MARKER =
  /(?:\.\.\. )?\[(?:\.\.\. )?\d+ (?:more )?(?:characters|lines|diff lines|matches)\b[^\]\n]*\]|\.\.\. \[line cut\]|\[lines \d+-\d+ of \d+ shown[^\]\n]*\]/;

const MAX_SHOWN_LINES = 12;
const MAX_SHOWN_CHARS = 240;
/** Bigger files are not searched for similar lines (slow, and rarely edited by hand). */
const MAX_FUZZY_CHARS = 5_000_000;

/**
 * Why old_string (LF text) is not in the file (LF text), with the closest
 * lines and their numbers, so the next call can be right.
 */
export function explainNotFound(
  text: string,
  oldString: string,
  newString: string,
  relative: string,
): string {
  const head = `old_string was not found in ${relative}`;
  if (text.replace(/^\uFEFF/, "") === "") {
    return `${head}: the file is empty. Use write_file to give it content.`;
  }
  const lines = text.split("\n");
  const marker = TRUNCATION_MARKER.exec(oldString);
  if (marker) return markerMessage(head, text, oldString, marker.index, marker[0], relative);
  const notes: string[] = [];
  const prefixed = countPrefixedLines(oldString);
  if (prefixed > 0) {
    notes.push(
      `${prefixed} line${prefixed === 1 ? "" : "s"} of old_string ${prefixed === 1 ? "starts" : "start"} with read_file's line-number prefix (\`${firstPrefix(oldString)}\`), which is not part of the file: remove it from every line of old_string and new_string`,
    );
  }
  const applied = alreadyApplied(text, oldString, newString);
  if (applied) return [`${head}. ${applied}`, ...notes].join("\n");
  const ending = finalNewline(text, oldString, lines);
  if (ending) return [head + ending, ...notes].join("\n");
  const escaped = overEscaped(text, oldString);
  if (escaped) return [`${head}, but ${escaped}`, ...notes].join("\n");
  const known = knownCause(text, lines, oldString, relative);
  if (known) return [`${head}, but ${known}`, ...notes].join("\n");
  const closest = text.length <= MAX_FUZZY_CHARS ? closestText(lines, oldString) : null;
  const next = `Copy the text exactly as read_file shows it (without the \`   N | \` prefixes), or call read_file again if the file changed since you read it.`;
  if (closest) return [`${head}. ${closest}`, ...notes, next].join("\n");
  return [
    `${head}, and nothing in it resembles old_string. It may be in another file (find it with grep_search for a distinctive word of it) or the file changed since you read it (call read_file again).`,
    ...notes,
  ].join("\n");
}

function markerMessage(
  head: string,
  text: string,
  old: string,
  at: number,
  marker: string,
  relative: string,
): string {
  const before = old.slice(0, at);
  const found = before.trim() === "" ? -1 : text.indexOf(before);
  const where = found === -1 ? "" : ` (the part before it is on line ${lineOf(text, found)})`;
  return `${head}: old_string contains \`${marker}\`, a truncation marker the tools add to what they show; it is not in the file${where}. End old_string before the marker (the visible part of a long line is usually unique), or print the whole line with run_shell (e.g. \`sed -n '${found === -1 ? "N" : lineOf(text, found + before.length)}p' ${relative} | cut -c1-8000\`).`;
}

/** old_string runs on past the end of the file by line breaks only. */
function finalNewline(text: string, old: string, lines: string[]): string | null {
  const oldBreaks = /\n*$/.exec(old)?.[0].length ?? 0;
  const fileBreaks = /\n*$/.exec(text)?.[0].length ?? 0;
  if (oldBreaks <= fileBreaks) return null;
  const trimmed = old.slice(0, old.length - oldBreaks);
  if (trimmed === "" || !text.slice(0, text.length - fileBreaks).endsWith(trimmed)) return null;
  const last = lines.length - (fileBreaks > 0 ? 1 : 0);
  const extra = oldBreaks - fileBreaks;
  if (fileBreaks === 0) {
    return `: old_string ends with a line break, but the file has no final newline after line ${last}. Drop the final line break from old_string (and from new_string, unless you mean to add one), then call edit_file again.`;
  }
  return `: old_string ends with ${oldBreaks} line breaks, but the file ends after line ${last} with ${fileBreaks === 1 ? "a single final newline" : `${fileBreaks} line breaks`}. Drop the last ${extra === 1 ? "line break" : `${extra} line breaks`} from old_string (and from new_string, unless you mean to add blank lines), then call edit_file again.`;
}

/**
 * old_string escaped twice: \\n for the file's \n, \" for its ". The JSON of
 * the call already decodes one level; the model added another.
 */
function overEscaped(text: string, old: string): string | null {
  if (!old.includes("\\")) return null;
  const once = old.replace(/\\(["'\\])/g, "$1");
  if (once === old) return null;
  const sample = /\\(["'\\])./.exec(old)?.[0] ?? "\\";
  const next =
    "Send old_string, and new_string, with the text exactly as the file has it (in the call's JSON a line break is written \\n and one backslash \\\\), then call edit_file again.";
  if (text.includes(once)) {
    return `old_string is escaped twice: it has \`${sample}\` where the file has \`${sample.replace(/\\(["'\\])/, "$1")}\` (the text with one backslash less is at line ${lineOf(text, text.indexOf(once))}). ${next}`;
  }
  const decoded = once.replace(/\\r\\n|\\n/g, "\n").replace(/\\t/g, "\t");
  if (decoded === once || !text.includes(decoded)) return null;
  return `old_string is escaped twice: it has \`\\\\n\` (two backslashes and n) where the file has a real line break (the text is at line ${lineOf(text, text.indexOf(decoded))}). ${next}`;
}

function alreadyApplied(text: string, old: string, neu: string): string | null {
  if (neu.trim().length < 10 || old.includes(neu) || !text.includes(neu)) return null;
  return `new_string is already in the file at line ${lineOf(text, text.indexOf(neu))}, so this edit may have been made already: call read_file on that part to check before retrying.`;
}

/** A match once a known near miss is undone: where, and what differs. */
function knownCause(text: string, lines: string[], old: string, relative: string): string | null {
  const wanted = canonical(old, "old");
  if (wanted.trim().length < 3) return null;
  const haystack = canonical(text, "file");
  const at = haystack.indexOf(wanted);
  if (at === -1) return null;
  const start = lineOf(haystack, at) - 1;
  const end = start + wanted.replace(/\n$/, "").split("\n").length;
  const region = lines.slice(start, end).join("\n");
  const needed = TRANSFORMS.filter(
    (t) => !canonical(region, "file", t.id).includes(canonical(old, "old", t.id)),
  ).map((t) => t.id);
  // When several rewrites each suffice alone, name those that change something.
  const ids =
    needed.length > 0
      ? needed
      : TRANSFORMS.filter((t) => t.file(region) !== region || t.old(old) !== old).map((t) => t.id);
  const causes = ids.flatMap((id) => {
    const said = describeCause(id, lines, start, end, old);
    return said ? [said] : [];
  });
  const others = countFrom(haystack, wanted, at);
  const more =
    others > 0 ? ` (${others} more place${others === 1 ? "" : "s"} match the same way)` : "";
  const ignored = ids.map((id) => LABELS[id]);
  return `${span(start, end)} would match it except for ${ignored.join(" and ")}${more}:\n${numbered(lines, start, end)}\nLikely cause: ${causes.join("; ")}.\n${advice(ids, relative)}`;
}

function countFrom(haystack: string, needle: string, at: number): number {
  let n = 0;
  for (
    let i = haystack.indexOf(needle, at + 1);
    i !== -1 && n < 100;
    i = haystack.indexOf(needle, i + 1)
  )
    n++;
  return n;
}

/** No known near miss: the most similar lines and where they first differ. */
function closestText(lines: string[], old: string): string | null {
  const oldLines = old.split("\n");
  if (oldLines.length > 1 && oldLines.at(-1) === "") oldLines.pop();
  const region = closestRegion(lines, oldLines);
  if (!region || region.score < 0.4) return null;
  let difference = "";
  for (let i = 0; i < oldLines.length; i++) {
    const fileLine = lines[region.start + i];
    const oldLine = oldLines[i] ?? "";
    if (fileLine === undefined) {
      difference = `old_string goes on past the end of the file (its line ${i + 1} onwards)`;
      break;
    }
    if (!lineAgrees(fileLine, oldLine, i, oldLines.length)) {
      difference = describeDifference(fileLine, oldLine, region.start + i + 1, i + 1);
      break;
    }
  }
  return `The closest text is at ${span(region.start, region.end)}:\n${numbered(lines, region.start, region.end)}\nFirst difference: ${difference || "old_string's lines are each found here, but not as one piece (a line is missing or added)"}.`;
}

function numbered(lines: string[], start: number, end: number): string {
  const out: string[] = [];
  const last = Math.min(end, start + MAX_SHOWN_LINES);
  for (let i = start; i < last; i++) {
    const line = lines[i] ?? "";
    const cut = line.length > MAX_SHOWN_CHARS ? `${line.slice(0, MAX_SHOWN_CHARS)}...` : line;
    out.push(`${String(i + 1).padStart(6)} | ${cut}`);
  }
  if (end > last) out.push(`       (${end - last} more lines)`);
  return out.join("\n");
}

/** "line 7" or "lines 7-9", from 0-based start and exclusive end. */
function span(start: number, end: number): string {
  return end - start <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${end}`;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
