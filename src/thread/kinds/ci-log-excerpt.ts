import { createHash } from "node:crypto";

/**
 * Cuts a CI job's log down to what a fix needs: the failing steps' error
 * lines with some context and each failing step's last lines, capped, with
 * timestamps and colour codes gone. Pure. Also a fingerprint of the failure
 * (its error lines with numbers, hashes and paths' digits blanked), so the
 * same failure is recognised on a re-run.
 */

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ?/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what this removes.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
// ✗ ✖ × as escapes (scripts/bundle-action.mjs says why).
const INTERESTING =
  /(##\[error\]|\berror\b|\berr!|fail|\u2717|\u2716|\u00d7|not ok|assert|expected|exception|traceback|panic|cannot|undefined|refused|denied|TS\d{4})/i;
const BEFORE = 3;
const AFTER = 6;
const TAIL = 15;

export interface LogExcerpt {
  text: string;
  /** The lines that carried the error, for the fingerprint. */
  errorLines: string[];
}

interface Section {
  name: string;
  lines: string[];
}

function sections(log: string): Section[] {
  const out: Section[] = [{ name: "(set up)", lines: [] }];
  for (const raw of log.split(/\r?\n/)) {
    const line = raw.replace(TIMESTAMP, "").replace(ANSI, "");
    const step = /^##\[group\]Run (.*)$/.exec(line);
    if (step) out.push({ name: step[1] ?? "", lines: [] });
    else out.at(-1)?.lines.push(line.replace(/^##\[(end)?group\]/, ""));
  }
  return out.filter((s) => s.lines.some((line) => line.trim() !== ""));
}

function excerptOf(section: Section): { text: string; errors: string[] } {
  const keep = new Set<number>();
  const errors: string[] = [];
  section.lines.forEach((line, i) => {
    if (!INTERESTING.test(line)) return;
    errors.push(line.trim());
    for (let j = Math.max(0, i - BEFORE); j <= Math.min(section.lines.length - 1, i + AFTER); j++)
      keep.add(j);
  });
  for (let j = Math.max(0, section.lines.length - TAIL); j < section.lines.length; j++) keep.add(j);
  const out: string[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last >= 0 && i > last + 1) out.push(`[... ${i - last - 1} lines ...]`);
    out.push(section.lines[i] ?? "");
    last = i;
  }
  return { text: out.join("\n"), errors };
}

/** The failing steps of one job's log, at most about `maxChars` (the end is kept). */
export function cutLog(log: string, maxChars = 6_000): LogExcerpt {
  const all = sections(log);
  const failing = all.filter((s) => s.lines.some((line) => line.startsWith("##[error]")));
  const chosen = failing.length > 0 ? failing : all.slice(-1);
  const parts = chosen.map((section) => {
    const { text, errors } = excerptOf(section);
    return {
      text: `--- step: ${section.name}\n${text.replace(/##\[error\]/g, "error: ")}`,
      errors,
    };
  });
  let text = parts.map((p) => p.text).join("\n");
  if (text.length > maxChars) text = `[... cut ...]\n${text.slice(text.length - maxChars)}`;
  return { text, errorLines: parts.flatMap((p) => p.errors) };
}

/** The same failure gives the same fingerprint, whatever the run, time, or ids in the output. */
export function failureFingerprint(jobs: ReadonlyArray<{ name: string; errorLines: string[] }>) {
  const normal = jobs
    .map((job) => {
      const lines = job.errorLines
        .map((line) =>
          line
            .replace(/\b[0-9a-f]{7,40}\b/gi, "#")
            .replace(/\d+(\.\d+)?(ms|s)?\b/g, "0")
            .replace(/\s+/g, " "),
        )
        .slice(0, 40);
      return `${job.name}\n${[...new Set(lines)].join("\n")}`;
    })
    .sort()
    .join("\n\n");
  return createHash("sha256").update(normal).digest("hex").slice(0, 12);
}
