import type { Document } from "yaml";
import { errorMessage } from "../error-message.js";
import { loadYaml, type Yaml } from "../load-yaml.js";
import {
  ConfigError,
  type ConfigProblem,
  configErrorMap,
  fileProblem,
  type LocateField,
  problemsFromIssues,
} from "./config-error.js";
import { configSchema, defaultConfig, knownKeys, type RepoConfig } from "./schema.js";

/**
 * The config file's text to settings. The YAML library is imported when
 * there is text to parse, not with this module: it is a good part of what
 * a job would load before its first model request, and most repositories
 * have no config file. (Importing this module lazily instead made the
 * Action's bundle load three more chunks at its start, for the code this
 * module shares with the rest: slower than loading YAML.)
 */

/** `source`: "file" when the file exists (even empty), "default" when there is none. */
export type ConfigResult =
  | { ok: true; config: RepoConfig; source: "file" | "default" }
  | { ok: false; error: ConfigError };

export interface ParseConfigOptions {
  /** Shown in error messages; defaults to `.github/patchwright.yml`. */
  path?: string;
  ref?: string;
}

/** Aliases are a YAML feature nobody needs in this file; a low cap stops alias bombs. */
const MAX_ALIAS_COUNT = 50;
/** Larger than any sensible config; bigger content is refused before parsing. */
const MAX_CONFIG_CHARS = 100_000;

/**
 * A known key written with no value (`policy:` followed by nothing) means
 * "not set", not "set to nothing", so it gets its default instead of a type
 * error. Unknown keys stay, so a typo is reported even without a value, and
 * `deps` is passed through untouched for its own feature to judge.
 */
function dropEmptyKeys(value: unknown, path: string[] = []): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const known = new Set(knownKeys(path));
  const entries = Object.entries(value)
    .filter(([key, item]) => item !== null || !known.has(key))
    .map(([key, item]) => [
      key,
      path.length === 0 && known.has(key) && key !== "deps" ? dropEmptyKeys(item, [key]) : item,
    ]);
  return Object.fromEntries(entries);
}

function syntaxProblem(error: {
  message: string;
  linePos?: [{ line: number; col: number }, ...unknown[]];
}): ConfigProblem {
  const firstLine = (error.message.split("\n")[0] ?? error.message).replace(/:\s*$/, "");
  const message = `YAML syntax error: ${firstLine}`;
  const problem: ConfigProblem = { field: null, message, detail: message };
  const position = error.linePos?.[0];
  if (position) {
    problem.line = position.line;
    problem.column = position.col;
  }
  return problem;
}

/**
 * Parses the text of `.github/patchwright.yml`. An empty file (or one with
 * only comments) means defaults. Never throws for bad content: syntax errors
 * come back with their line and column, schema errors name the field.
 */
export async function parseConfig(
  text: string,
  options: ParseConfigOptions = {},
): Promise<ConfigResult> {
  const fail = (problems: ConfigProblem[]): ConfigResult => ({
    ok: false,
    error: new ConfigError(problems, options),
  });
  if (text.length > MAX_CONFIG_CHARS) {
    return fail([
      fileProblem(`the file is ${text.length} characters long; keep it under ${MAX_CONFIG_CHARS}`),
    ]);
  }
  const yaml = await loadYaml();
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) return fail(doc.errors.map(syntaxProblem));

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const reason = errorMessage(error);
    return fail([fileProblem(`the file could not be read as YAML: ${reason}`)]);
  }
  if (raw === null || raw === undefined) {
    return { ok: true, config: defaultConfig(), source: "file" };
  }

  const input = dropEmptyKeys(raw);
  const parsed = configSchema.safeParse(input, { error: configErrorMap });
  if (parsed.success) return { ok: true, config: parsed.data, source: "file" };

  const locate: LocateField = (path) => {
    const offset = fieldOffset(yaml, doc, path);
    if (offset === undefined) return undefined;
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  // In file order, which is how a maintainer fixes them.
  const found = problemsFromIssues(parsed.error.issues, input, locate);
  return fail(found.sort((a, b) => (a.line ?? Number.MAX_VALUE) - (b.line ?? Number.MAX_VALUE)));
}

/** Where a setting starts in the file: the key for a mapping entry, the item for a list entry. */
function fieldOffset(
  { isMap, isNode, isScalar, isSeq }: Yaml,
  doc: Document,
  path: readonly PropertyKey[],
): number | undefined {
  const parent = path.length <= 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  const last = path.at(-1);
  if (last === undefined) return isNode(parent) ? parent.range?.[0] : undefined;
  if (isMap(parent)) {
    const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === last);
    return isNode(pair?.key) ? pair.key.range?.[0] : undefined;
  }
  if (isSeq(parent) && typeof last === "number") {
    const item = parent.items[last];
    return isNode(item) ? item.range?.[0] : undefined;
  }
  return undefined;
}
