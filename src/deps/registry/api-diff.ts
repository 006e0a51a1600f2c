import { structuredPatch } from "diff";

const MAX_DIFF_LINES = 80;

/**
 * The public API between the two versions: a compact unified diff of each
 * type definition file, normalized first (comments and blank lines gone,
 * whitespace collapsed) so only declarations show, with one line of
 * context; files that went, came or moved said as such; and the subpaths
 * of package.json's `exports`. Lines, not a semantic model: enough to show
 * a removed member, a renamed option or a changed signature. Cut at
 * MAX_DIFF_LINES, saying what was cut.
 */
export function apiDiff(
  before: Map<string, string>,
  after: Map<string, string>,
): string | undefined {
  const [old, now] = [typeFiles(before), typeFiles(after)];
  const sections: Array<{ path: string; lines: string[] }> = [];
  const oldKeys = exportKeys(before.get("package.json") ?? "");
  const newKeys = exportKeys(after.get("package.json") ?? "");
  const keyLines = [
    ...oldKeys.filter((k) => !newKeys.includes(k)).map((k) => `- ${k}`),
    ...newKeys.filter((k) => !oldKeys.includes(k)).map((k) => `+ ${k}`),
  ];
  if (keyLines.length > 0) sections.push({ path: "package.json exports", lines: keyLines });

  const gone = [...old.keys()].filter((path) => !now.has(path));
  const came = [...now.keys()].filter((path) => !old.has(path));
  for (const path of gone) {
    const text = old.get(path) ?? "";
    // Moved: the same declarations, or the one file of the same name, elsewhere.
    const moved =
      came.find((p) => now.get(p) === text) ??
      (() => {
        const same = came.filter((p) => baseName(p) === baseName(path));
        const others = gone.filter((p) => baseName(p) === baseName(path));
        return same.length === 1 && others.length === 1 ? same[0] : undefined;
      })();
    if (moved !== undefined) {
      came.splice(came.indexOf(moved), 1);
      const lines = hunks(path, text, now.get(moved) ?? "");
      const note = lines.length > 0 ? `moved to ${moved}` : `moved to ${moved}, unchanged`;
      sections.push({ path: `${path} (${note})`, lines });
    } else {
      sections.push({ path: `${path} (removed)`, lines: asLines(text, "-") });
    }
  }
  for (const [path, text] of old) {
    const next = now.get(path);
    if (next === undefined || next === text) continue;
    sections.push({ path, lines: hunks(path, text, next) });
  }
  for (const path of came) {
    sections.push({ path: `${path} (new)`, lines: asLines(now.get(path) ?? "", "+") });
  }
  return render(mergeSame(sections));
}

/** Dual packages ship the same declarations as .d.ts and .d.cts: one diff, named once per file. */
function mergeSame(
  sections: Array<{ path: string; lines: string[] }>,
): Array<{ path: string; lines: string[] }> {
  const byBody = new Map<string, { path: string; lines: string[] }>();
  const out: Array<{ path: string; lines: string[] }> = [];
  for (const section of sections) {
    const body = section.lines.join("\n");
    const same = body ? byBody.get(body) : undefined;
    if (same) {
      same.path = `${same.path}, ${section.path}`;
      continue;
    }
    const copy = { ...section };
    if (body) byBody.set(body, copy);
    out.push(copy);
  }
  return out;
}

/** The type definition files, normalized; unchanged files compare equal whatever their comments. */
function typeFiles(files: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of files) {
    if (/\.d\.[cm]?ts$/.test(path)) out.set(path, normalizeDeclarations(text));
  }
  return out;
}

/** Comments and blank lines dropped, whitespace collapsed, one line per source line. */
function normalizeDeclarations(text: string): string {
  const lines = stripComments(text)
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\s+/g, " "))
    .filter((line) => line !== "");
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/** Removes // and /* *\/ comments, leaving string literals (and the newlines inside comments) alone. */
function stripComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i += 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, "");
      i = stop;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** The changed lines with one line of context, hunks separated by `@@`. */
function hunks(path: string, oldText: string, newText: string): string[] {
  // A rewritten file of thousands of lines is no compact diff, and the diff would take long.
  const patch = structuredPatch(path, path, oldText, newText, undefined, undefined, {
    context: 1,
    maxEditLength: 2_000,
  });
  if (!patch) {
    // Too many changes to align: the lines that left and the lines that came, without context.
    const [old, now] = [new Set(oldText.split("\n")), new Set(newText.split("\n"))];
    return [
      "(rewritten: lines that left and lines that came, out of order)",
      ...[...old].filter((line) => line && !now.has(line)).map((line) => `-${line}`),
      ...[...now].filter((line) => line && !old.has(line)).map((line) => `+${line}`),
    ];
  }
  return patch.hunks.flatMap((hunk, i) => [
    ...(i > 0 ? ["@@"] : []),
    ...hunk.lines.filter((line) => !line.startsWith("\\")),
  ]);
}

function asLines(text: string, sign: "-" | "+"): string[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => `${sign}${line}`);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function render(sections: Array<{ path: string; lines: string[] }>): string | undefined {
  if (sections.length === 0) return undefined;
  const out: string[] = [];
  const cut: string[] = [];
  let cutLines = 0;
  for (const { path, lines } of sections) {
    const room = MAX_DIFF_LINES - out.length - 1;
    if (room < 2) {
      cut.push(path);
      cutLines += lines.length;
      continue;
    }
    out.push(`## ${path}`, ...lines.slice(0, room));
    if (lines.length > room) {
      cut.push(path);
      cutLines += lines.length - room;
    }
  }
  if (cut.length > 0) out.push(`… ${cutLines} more lines cut, of ${cut.join(", ")}`);
  return out.join("\n");
}

function exportKeys(text: string): string[] {
  if (!text) return [];
  try {
    const exports = (JSON.parse(text) as { exports?: unknown }).exports;
    if (exports && typeof exports === "object" && !Array.isArray(exports)) {
      const keys = Object.keys(exports);
      return keys.every((k) => k.startsWith(".")) ? keys : ["."];
    }
    return typeof exports === "string" ? ["."] : [];
  } catch {
    return [];
  }
}
