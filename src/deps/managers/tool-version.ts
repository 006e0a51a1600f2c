import { execFile } from "node:child_process";
import { major, minor, valid } from "semver";
import type { ProjectNodes } from "../plan/project-node.js";
import { packageManager, pinnedRelease } from "./index.js";
import { nodeBelow } from "./node-check.js";
import { findProgram } from "./tool-check.js";
import { toolCommand } from "./tool-command.js";
import { nodeOnPath } from "./tool-engines.js";
import type { DetectedManager, ManagerTools } from "./types.js";

/**
 * Whether the job's bun is the release package.json's `packageManager`
 * pins. pnpm and yarn are started at their pinned release (corepack, or
 * the release file the project keeps) and npm comes with the Node that runs
 * the job, but bun is whatever the PATH has, and bun.lock is written as
 * that bun writes it: hono pins bun@1.2.20, and a job on a host with bun
 * 1.4.5 relocked it with 1.4.5 without a word. Said before any group, as
 * an older Node is; undefined when they agree on major and minor, or
 * either version cannot be told.
 */
export async function bunBesidePin(
  manager: DetectedManager,
  env: Readonly<Record<string, string>>,
  tools?: ManagerTools,
): Promise<string | undefined> {
  const pin = pinnedRelease(manager.pinned);
  if (manager.name !== "bun" || pin?.tool !== "bun" || !valid(pin.version)) return undefined;
  const command = toolCommand(packageManager("bun"), tools, manager);
  const program = findProgram(command.trim().split(/\s+/)[0] ?? command, env.PATH ?? "");
  if (!program) return undefined; // the tool check says that
  const version = await versionOf(program);
  if (!version || (major(version) === major(pin.version) && minor(version) === minor(pin.version)))
    return undefined;
  return `the project pins bun ${pin.version} (package.json "packageManager"), and the job's commands run bun ${version} (${program}): bun.lock is written as bun ${version} writes it. Install bun ${major(pin.version)}.${minor(pin.version)} where patchwright runs (oven-sh/setup-bun with bun-version-file: package.json) to match.`;
}

function versionOf(program: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(program, ["--version"], { timeout: 10_000 }, (error, out) => {
      const version = valid(out.trim().replace(/^v/, ""));
      resolve(error ? undefined : (version ?? undefined));
    });
  });
}

/**
 * What a dependency job says before its first group about the tools its
 * commands get: a Node older than the project's, a bun other than its pin.
 * A group that then fails "without the updates too" fails for that.
 */
export async function toolWarnings(options: {
  nodes: ProjectNodes;
  manager: DetectedManager;
  env: Readonly<Record<string, string>>;
  tools?: ManagerTools | undefined;
}): Promise<string[]> {
  const node = await nodeOnPath(options.env.PATH ?? "");
  const warnings = [
    node ? nodeBelow(options.nodes, node) : undefined,
    await bunBesidePin(options.manager, options.env, options.tools),
  ];
  return warnings.filter((warning) => warning !== undefined);
}
