import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../error-message.js";
import type { GitHubClient } from "../github/octokit.js";
import { applyCeilings, type OperatorCeilings } from "./ceilings.js";
import { ConfigError, fileProblem } from "./config-error.js";
import { type ConfigResult, parseConfig } from "./parse.js";
import { DEFAULT_CONFIG_PATH, defaultConfig } from "./schema.js";

export { ConfigError, type ConfigProblem } from "./config-error.js";
export type { ConfigResult, ParseConfigOptions } from "./parse.js";

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
  const text = Buffer.from(file.content, "base64").toString("utf8");
  return capped(await parseConfig(text, where));
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
