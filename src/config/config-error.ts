import { editDistance } from "../edit-distance.js";
import type * as z from "../zod.js";
import { DEFAULT_CONFIG_PATH, knownKeys } from "./schema.js";

/** One thing wrong with the config file. */
export interface ConfigProblem {
  /** The setting, as written in the file: `max_turns`, `policy.allow[1]`; null for the file as a whole. */
  field: string | null;
  /** What is wrong, in a maintainer's words, starting with the field when there is one. */
  message: string;
  /** The message without the field and the value: "expected a whole number above 0". */
  detail: string;
  /** The value that was written, quoted ("lots"), when it helps to show it. */
  got?: string;
  /** 1-based position in the file, when known. */
  line?: number;
  column?: number;
}

/**
 * Why `.github/patchwright.yml` could not be used. It is returned, not thrown:
 * a bad file is answered with a comment (`toMarkdown`), never a crash.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  /** The first problem's field, for callers that report one thing. */
  readonly field: string | null;
  readonly path: string;
  /** The branch the file was read from, when it came from GitHub. */
  readonly ref: string | undefined;

  constructor(problems: readonly ConfigProblem[], options: { path?: string; ref?: string } = {}) {
    super(problems.map((problem) => problem.message).join("; ") || "invalid configuration");
    this.name = "ConfigError";
    this.problems = problems;
    this.field = problems[0]?.field ?? null;
    this.path = options.path ?? DEFAULT_CONFIG_PATH;
    this.ref = options.ref;
  }

  /** The explaining comment posted on the issue or pull request. */
  toMarkdown(): string {
    const where = this.ref ? ` on \`${this.ref}\`` : "";
    const items = this.problems.map((problem) => {
      const field = problem.field === null ? "" : `${inlineCode(problem.field)}: `;
      const got = problem.got === undefined ? "" : `, got ${inlineCode(problem.got)}`;
      // Syntax errors already say where they are.
      const line =
        problem.line === undefined || problem.field === null ? "" : ` (line ${problem.line})`;
      return `- ${field}${problem.detail}${got}${line}`;
    });
    return [
      `**The configuration file ${inlineCode(this.path)}${where} has ${this.problems.length === 1 ? "a problem" : `${this.problems.length} problems`}, so no job was started.**`,
      "",
      ...items,
      "",
      "Fix the file on the default branch and ask again. Every setting is optional: anything left out gets its default.",
    ].join("\n");
  }
}

/** Inline code that survives backticks in the text. */
function inlineCode(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** `policy.allow[1]` from `["policy", "allow", 1]`. */
export function formatField(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** A short, quoted picture of the value a maintainer wrote. */
export function describeValue(value: unknown): string {
  if (value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/** Friendlier wording than zod's defaults for checks the schema does not word itself. */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    const wanted: Record<string, string> = {
      string: "expected text",
      number: "expected a number",
      boolean: "expected true or false",
      array: "expected a list",
      object: "expected a mapping (key: value lines)",
    };
    return wanted[issue.expected];
  }
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return undefined;
};

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function normalizeKey(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

function suggestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = normalizeKey(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate);
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(wanted.length / 3)) ? best.key : undefined;
}

/** Where a path is written in the file, when the caller can tell. */
export type LocateField = (
  path: readonly PropertyKey[],
) => { line: number; column: number } | undefined;

/** Turns zod issues into problems naming the field, the expectation and what was written. */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  locate: LocateField = () => undefined,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(issue.path);
      for (const key of issue.keys) {
        const field = formatField([...issue.path, key]);
        const suggestion = suggestKey(key, known);
        const hint = suggestion
          ? `; did you mean "${suggestion}"?`
          : known.length > 0
            ? `; known settings here: ${known.join(", ")}`
            : "";
        const detail = `unknown setting${hint}`;
        problems.push({
          field,
          message: `${field}: ${detail}`,
          detail,
          ...locate([...issue.path, key]),
        });
      }
      continue;
    }
    const field = issue.path.length > 0 ? formatField(issue.path) : null;
    const value = valueAt(input, issue.path);
    // Rule problems already quote the rule, and an empty string says nothing more.
    const got =
      issue.code === "custom" || value === undefined || value === ""
        ? undefined
        : describeValue(value);
    const text = got === undefined ? issue.message : `${issue.message}, got ${got}`;
    problems.push({
      field,
      message: field ? `${field}: ${text}` : `the file: ${text}`,
      detail: issue.message,
      ...(got === undefined ? {} : { got }),
      ...locate(issue.path),
    });
  }
  return problems;
}

/** A problem with the file as a whole (too large, unreadable, not a file). */
export function fileProblem(message: string): ConfigProblem {
  return { field: null, message, detail: message };
}
