import { shellQuote } from "../fs/text-file.js";
import { characterName, lineAgrees } from "./edit-closest.js";
import { type IndentRule, indentRuleFor } from "./edit-indent-guard.js";

/*
 * The near misses edit_file names when old_string is not found: what makes
 * each one disappear, what it is called, and what to do about it.
 */

type CauseId = "escaped" | "line-endings" | "nbsp" | "unicode" | "quotes" | "whitespace";

interface Transform {
  id: CauseId;
  file(text: string): string;
  old(text: string): string;
}

const same = (text: string) => text;
const both = (id: CauseId, apply: (text: string) => string): Transform => ({
  id,
  file: apply,
  old: apply,
});

/**
 * Each near miss the model commonly makes, as a rewrite of both sides that
 * makes it disappear. Every one keeps the number of lines, so a match in the
 * rewritten file is a match at the same lines of the real one.
 */
export const TRANSFORMS: Transform[] = [
  { id: "escaped", file: same, old: (s) => s.replace(/\\r\\n|\\n/g, "\n").replace(/\\t/g, "\t") },
  both("line-endings", (s) => s.replace(/\r/g, "")),
  both("nbsp", (s) =>
    s
      .replace(/[\u00a0\u2000-\u200a\u202f\u3000]/g, " ")
      .replace(/[\u200b-\u200d\u2060\ufeff]/g, ""),
  ),
  both("unicode", (s) => s.normalize("NFC")),
  both("quotes", (s) =>
    s
      .replace(/[\u2018\u2019\u201a\u201b\u2032`"\u201c\u201d\u201e\u201f\u2033]/g, "'")
      .replace(/[\u2013\u2014\u2212]/g, "-"),
  ),
  both("whitespace", (s) =>
    s
      .split("\n")
      .map((line) => line.replace(/^[ \t]+|[ \t]+$/g, "").replace(/[ \t]+/g, " "))
      .join("\n"),
  ),
];

export const LABELS: Record<CauseId, string> = {
  escaped: "escaped \\n",
  "line-endings": "line endings",
  nbsp: "non-breaking or invisible spaces",
  unicode: "Unicode normalization",
  quotes: "quote or dash characters",
  whitespace: "whitespace",
};

export function canonical(text: string, side: "file" | "old", skip?: CauseId): string {
  let out = text;
  for (const t of TRANSFORMS) if (t.id !== skip) out = t[side](out);
  return out;
}

export function advice(needed: CauseId[], relative: string): string {
  const rule = needed.includes("whitespace") ? indentRuleFor(relative) : null;
  if (rule) return INDENT_ADVICE[rule];
  if (needed.includes("escaped")) {
    return "Send old_string with real line breaks (a newline character in the JSON string, not a backslash followed by n), then call edit_file again.";
  }
  if (needed.includes("line-endings")) {
    return `Either include the \\r at that place in old_string, or first make the line endings uniform with run_shell (e.g. \`sed -i 's/\\r*$//' ${shellQuote(relative)}\`, then read_file again).`;
  }
  if (needed.some((id) => id === "nbsp" || id === "unicode")) {
    return "Copy those characters exactly (in the JSON string they can be written as \\u00a0, \\u0301 and so on), or choose an old_string that leaves them out, then call edit_file again.";
  }
  if (needed.includes("quotes")) {
    return "Quotes are different characters, not a style: copy the lines above exactly (without the `   N | ` prefixes). If the file changed since you read it (a formatter rewrites quotes), call read_file again first.";
  }
  return "Copy the lines above exactly (without the `   N | ` prefixes) and call edit_file again.";
}

const INDENT_ADVICE: Record<IndentRule, string> = {
  make: "In a Makefile a tab and spaces are different: recipe lines start with a tab. Copy the lines above exactly, with a tab (\\t in the JSON string) where the file has one, in old_string and in new_string.",
  yaml: "YAML indents with spaces only: copy the lines above exactly, with the same number of spaces, in old_string and in new_string.",
  python:
    "Python's indentation is part of the code: copy the lines above exactly, with the file's own tabs or spaces, in old_string and in new_string.",
};

/** One cause, named the way the model can act on it, with a line it shows on. */
export function describeCause(
  id: CauseId,
  lines: string[],
  start: number,
  end: number,
  old: string,
): string | null {
  const region = lines.slice(start, end);
  const lineWith = (test: RegExp): number => {
    const i = region.findIndex((l) => test.test(l));
    return i === -1 ? -1 : start + i + 1;
  };
  switch (id) {
    case "escaped":
      return /\\n/.test(old)
        ? "escaped \\n: old_string contains a backslash followed by n where the file has a real line break"
        : /\\t/.test(old)
          ? "escaped \\t: old_string contains a backslash followed by t where the file has a real tab"
          : null;
    case "line-endings": {
      const at = lineWith(/\r/);
      return at !== -1
        ? `mixed line endings: line ${at} holds a carriage return (\\r) that read_file does not show (a lone \\r or a \\r\\r\\n ending)`
        : /\r/.test(old)
          ? "mixed line endings: old_string contains a carriage return (\\r) that is not in the file"
          : null;
    }
    case "nbsp": {
      const special = /[\u00a0\u2000-\u200d\u202f\u2060\u3000\ufeff]/;
      const at = lineWith(special);
      const char = (at !== -1 ? lines[at - 1] : old)?.match(special)?.[0];
      const name = characterName(char?.codePointAt(0) ?? 0xa0) ?? "a special space";
      return at !== -1
        ? `NBSP / invisible character: line ${at} has ${name} where old_string has a plain space (or nothing)`
        : `NBSP / invisible character: old_string has ${name} where the file has a plain space (or nothing)`;
    }
    case "unicode": {
      const at = region.findIndex((l) => l !== l.normalize("NFC"));
      return at !== -1
        ? `Unicode normalization: line ${start + at + 1} stores accented letters decomposed (NFD, letter + combining mark) while old_string has them composed (NFC)`
        : "Unicode normalization: old_string has accented letters decomposed (NFD, letter + combining mark) while the file has them composed (NFC)";
    }
    case "quotes":
      return quoteCause(region, start, old);
    case "whitespace":
      return whitespaceCause(region, start, old);
  }
}

function quoteCause(region: string[], start: number, old: string): string {
  // Hyphens are everywhere; they count only when a typographic dash is involved.
  const dashes = /[\u2013\u2014\u2212]/.test(region.join("\n") + old);
  const quotes = dashes
    ? /[\u2018\u2019\u201a\u201b\u2032`'"\u201c\u201d\u201e\u201f\u2033\u2013\u2014\u2212-]/g
    : /[\u2018\u2019\u201a\u201b\u2032`'"\u201c\u201d\u201e\u201f\u2033]/g;
  const fileSet = new Set(region.join("\n").match(quotes) ?? []);
  const oldSet = new Set(old.match(quotes) ?? []);
  const fileOnly = [...fileSet].filter((q) => !oldSet.has(q));
  const oldOnly = [...oldSet].filter((q) => !fileSet.has(q));
  const at = region.findIndex((l) => fileOnly.some((q) => l.includes(q)));
  const name = (q: string) =>
    q === "`" ? "a backtick (`)" : (characterName(q.codePointAt(0) ?? 0) ?? `\`${q}\``);
  const where = at === -1 ? "the file" : `line ${start + at + 1}`;
  const ascii = [...fileOnly, ...oldOnly].every((q) => "'\"`".includes(q));
  const kind = ascii
    ? "quote characters differ (they are not interchangeable)"
    : "quotes or dashes differ";
  return `${kind}: ${where} has ${fileOnly.map(name).join(", ") || "other quotes"} where old_string has ${oldOnly.map(name).join(", ") || "other quotes"}`;
}

function whitespaceCause(region: string[], start: number, old: string): string {
  const oldLines = old.split("\n");
  for (let i = 0; i < oldLines.length; i++) {
    const fileLine = region[i] ?? "";
    const oldLine = oldLines[i] ?? "";
    if (lineAgrees(fileLine, oldLine, i, oldLines.length)) continue;
    const lineNo = start + i + 1;
    const fileIndent = /^[ \t]*/.exec(fileLine)?.[0] ?? "";
    const oldIndent = /^[ \t]*/.exec(oldLine)?.[0] ?? "";
    if ((i > 0 || oldIndent !== "") && fileIndent !== oldIndent) {
      return `whitespace: line ${lineNo} is indented with ${indentName(fileIndent)} in the file but ${indentName(oldIndent)} in old_string`;
    }
    if (/[ \t]$/.test(fileLine) !== /[ \t]$/.test(oldLine)) {
      return `whitespace: line ${lineNo} ${/[ \t]$/.test(fileLine) ? "ends with spaces in the file that old_string leaves out" : "has no trailing spaces in the file, but old_string adds some"}`;
    }
    return `whitespace: the spacing inside line ${lineNo} differs (spaces or tabs between words)`;
  }
  return "whitespace: spaces or tabs differ";
}

function indentName(indent: string): string {
  if (indent === "") return "nothing";
  const tabs = indent.split("\t").length - 1;
  const spaces = indent.length - tabs;
  return [
    tabs ? `${tabs} tab${tabs === 1 ? "" : "s"}` : "",
    spaces ? `${spaces} space${spaces === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
}
