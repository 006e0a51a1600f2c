import { lt, major, minor, valid } from "semver";
import type { ProjectNodes } from "../plan/node/project-node.js";
import { pinnedRelease } from "./index.js";
import { nodeBelow } from "./node-check.js";
import { findProgram, toolProgram } from "./tool-check.js";
import { nodeOnPath, programVersion } from "./tool-engines.js";
import type { DetectedManager, ManagerName, ManagerTools } from "./types.js";

/**
 * The first release of each tool whose resolution takes an age gate:
 * pnpm's minimumReleaseAge (10.16), yarn's npmMinimalAgeGate (4.10); yarn 1
 * has none. npm's --before is old, and bun's is the PATH's bun's.
 */
const GATE_SINCE: Partial<Record<ManagerName, string | null>> = {
  "yarn-classic": null,
  pnpm: "10.16.0",
  "yarn-berry": "4.10.0",
};

/**
 * Why the project's package manager resolves a range without the cooldown,
 * or undefined when it takes the job's age gate. pinia pins pnpm@9.4.0:
 * `--config.minimum-release-age` meant nothing to it, and its relock took
 * vue 3.5.47, two days old, where the plan had 3.5.46.
 */
export function noAgeGate(manager: DetectedManager): string | undefined {
  const since = GATE_SINCE[manager.name];
  if (since === undefined) return undefined;
  if (since === null) return "yarn 1 has no age gate";
  const pin = pinnedRelease(manager.pinned);
  if (!pin || !valid(pin.version) || !lt(pin.version, since)) return undefined;
  return `${pin.tool} ${pin.version} has no age gate (${pin.tool} ${since.replace(/\.0$/, "")} added it)`;
}

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
  const program = findProgram(toolProgram(manager, tools), env.PATH ?? "");
  if (!program) return undefined; // the tool check says that
  const version = valid(await programVersion(program));
  if (!version || (major(version) === major(pin.version) && minor(version) === minor(pin.version)))
    return undefined;
  return `the project pins bun ${pin.version} (package.json "packageManager"), and the job's commands run bun ${version} (${program}): bun.lock is written as bun ${version} writes it. Install bun ${major(pin.version)}.${minor(pin.version)} where patchwright runs (oven-sh/setup-bun with bun-version-file: package.json) to match.`;
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
