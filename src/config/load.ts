import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Document, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { applyCeilings, type OperatorCeilings } from "./ceilings.js";
import {
  ConfigError,
  type ConfigProblem,
  configErrorMap,
  type LocateField,
  problemsFromIssues,
} from "./config-error.js";
import {
  configSchema,
  DEFAULT_CONFIG_PATH,
  defaultConfig,
  knownKeys,
  type RepoConfig,
} from "./schema.js";

export { ConfigError, type ConfigProblem } from "./config-error.js";

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

function fileProblem(message: string): ConfigProblem {
  return { field: null, message, detail: message };
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
export function parseConfig(text: string, options: ParseConfigOptions = {}): ConfigResult {
  const fail = (problems: ConfigProblem[]): ConfigResult => ({
    ok: false,
    error: new ConfigError(problems, options),
  });
  if (text.length > MAX_CONFIG_CHARS) {
    return fail([
      fileProblem(`the file is ${text.length} characters long; keep it under ${MAX_CONFIG_CHARS}`),
    ]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
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
    const offset = fieldOffset(doc, path);
    if (offset === undefined) return undefined;
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  // In file order, which is how a maintainer fixes them.
  const found = problemsFromIssues(parsed.error.issues, input, locate);
  return fail(found.sort((a, b) => (a.line ?? Number.MAX_VALUE) - (b.line ?? Number.MAX_VALUE)));
}

/** Where a setting starts in the file: the key for a mapping entry, the item for a list entry. */
function fieldOffset(doc: Document, path: readonly PropertyKey[]): number | undefined {
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

export interface LoadRepoConfigOptions {
  owner: string;
  repo: string;
  /**
   * The branch to read from. Callers pass the repository's DEFAULT branch,
   * never a pull request's head: whoever can push to a PR branch must not be
   * able to loosen the policy or raise the limits of the job it triggers.
   */
  ref: string;
  path?: string;
  /** The operator's ceilings, applied to the file's settings (config/ceilings.ts). */
  ceilings?: OperatorCeilings | undefined;
}

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && "status" in error && error.status === 404;
}

/**
 * Reads and parses the repository's config from `ref` (the default branch).
 * A missing file means defaults (`source: "default"`). Bad content is
 * returned as a ConfigError; API failures other than 404 are thrown, since
 * they say nothing about the file and the caller decides whether to retry.
 */
export async function loadRepoConfig(
  octokit: GitHubClient,
  options: LoadRepoConfigOptions,
): Promise<ConfigResult> {
  const path = options.path ?? DEFAULT_CONFIG_PATH;
  const where = { path, ref: options.ref };
  let data: unknown;
  const capped = (result: ConfigResult): ConfigResult =>
    result.ok && options.ceilings
      ? { ...result, config: applyCeilings(result.config, options.ceilings) }
      : result;
  try {
    const response = await octokit.rest.repos.getContent({
      owner: options.owner,
      repo: options.repo,
      path,
      ref: options.ref,
    });
    data = response.data;
  } catch (error) {
    if (isNotFound(error)) return capped({ ok: true, config: defaultConfig(), source: "default" });
    throw error;
  }
  const file = data as { type?: string; content?: string; encoding?: string; size?: number };
  if (Array.isArray(data) || file.type !== "file") {
    const problem = fileProblem(`${path} is not a file; it must be a YAML file`);
    return { ok: false, error: new ConfigError([problem], where) };
  }
  if (file.encoding !== "base64" || typeof file.content !== "string") {
    const problem = fileProblem(
      `${path} could not be downloaded (${file.size ?? "unknown"} bytes); keep it small`,
    );
    return { ok: false, error: new ConfigError([problem], where) };
  }
  return capped(parseConfig(Buffer.from(file.content, "base64").toString("utf8"), where));
}

/**
 * Reads `<dir>/.github/patchwright.yml` from disk: the CLI's way to the same
 * file the App reads from the default branch. A missing file means defaults;
 * anything else unreadable is a ConfigError naming the file.
 */
export async function loadLocalConfig(
  dir: string,
  path = DEFAULT_CONFIG_PATH,
): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(join(dir, path), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { ok: true, config: defaultConfig(), source: "default" };
    }
    const problem = fileProblem(`${path} could not be read: ${errorMessage(error)}`);
    return { ok: false, error: new ConfigError([problem], { path }) };
  }
  return parseConfig(text, { path });
}
