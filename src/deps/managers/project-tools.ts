import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseJsonText } from "../../json-text.js";
import type { ProjectTools } from "../../kernel/project-tools.js";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { readNpmConfig } from "../registry/npmrc.js";
import {
  corepackRegistryEnv,
  detectPackageManager,
  managerCommands,
  packageManager,
} from "./index.js";
import { nodeBelowProject } from "./node-check.js";
import { findProgram } from "./tool-check.js";
import { pinnedReleaseRefusal } from "./tool-engines.js";
import type { DetectedManager } from "./types.js";

/**
 * What a prompt job's commands need to start the checkout's package manager
 * (kernel/project-tools.ts), found as the dependency job finds it: the
 * release file the project keeps (yarn's `yarnPath`), or corepack for the
 * pnpm or yarn package.json pins, or for a lockfile's tool the PATH lacks.
 * Nothing for npm and bun, which the PATH has or not, nor for a project
 * without a package.json (or one that cannot be read: its own commands
 * will say so). `warn` hears of a Node older than the project's.
 */
export async function projectTools(
  dir: string,
  env: Readonly<Record<string, string>>,
  warn?: (message: string) => void,
): Promise<ProjectTools | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest) return undefined;
  const npm = await readNpmConfig({ dir, env });
  if (warn) {
    const below = await nodeBelowProject(dir, manifest, env, npm.options).catch(() => undefined);
    if (below) warn(below);
  }
  const detected = await detectPackageManager(dir, manifest);
  const manager = packageManager(detected.name);
  // Unpinned, the PATH's own tool is as good as corepack's default.
  if (!detected.pinned && !detected.release && findProgram(manager.tool, env.PATH ?? "")) {
    return undefined;
  }
  const commands = managerCommands(detected);
  return toolsFor(detected, commands.shims(dir), {
    launchEnv: commands.launchEnv,
    registryEnv: corepackRegistryEnv(npm.registry, env),
    path: env.PATH,
  });
}

/**
 * The tools for a manager already detected, started as `shims` start it
 * (the dependency job's own, which follow its operator's `packageManagers`):
 * what its agent's shell gets. None when the PATH's tool is it.
 */
export function toolsFor(
  detected: DetectedManager,
  shims: Record<string, string>,
  options: {
    launchEnv: (folder: string) => Record<string, string>;
    /** corepack's registry (corepackRegistryEnv), when it starts the tool. */
    registryEnv: Record<string, string>;
    path: string | undefined;
  },
): ProjectTools | undefined {
  const manager = packageManager(detected.name);
  const command = shims[manager.tool];
  if (!command) return undefined;
  const corepack = command.startsWith("corepack ");
  const registryEnv = corepack ? options.registryEnv : {};
  return {
    label: detected.release
      ? `${manager.label} from ${detected.release}`
      : corepack
        ? `${detected.pinned ?? manager.tool} through corepack`
        : `${manager.label} (${command})`,
    shims,
    env: (folder) => ({ ...options.launchEnv(folder), ...registryEnv }),
    fetch: corepack ? `${command} --version` : undefined,
    explain: corepack
      ? (folder, env) => fetchedEngineProblem(detected, options.launchEnv(folder), env)
      : undefined,
    corepack: findProgram("corepack", options.path ?? ""),
  };
}

/**
 * The release corepack fetched, when it cannot run on the commands' Node:
 * pnpm 11 needs Node 22.13 (it loads node:sqlite), and on Node 20 its
 * fetch ends in a stack trace whose last lines name neither. Its engines
 * are read from the release's own package.json in the job's corepack home:
 * no registry.
 */
async function fetchedEngineProblem(
  detected: DetectedManager,
  launchEnv: Record<string, string>,
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const home = launchEnv.COREPACK_HOME;
  if (!home) return undefined;
  const refusal = await pinnedReleaseRefusal({
    manager: detected,
    env,
    engines: (release) =>
      readFile(join(home, "v1", release.tool, release.version, "package.json"), "utf8").then(
        enginesNode,
        () => undefined,
      ),
  });
  if (!refusal) return undefined;
  const { tool, version, engines, node } = refusal;
  return `${tool} ${version} (package.json "packageManager") needs Node ${engines}, and the job's commands run Node ${node}, the first \`node\` on the PATH: set up a Node it accepts before the job (actions/setup-node in the workflow; a newer Node where the App or \`patchwright run\` runs), or pin a ${tool} release that runs on Node ${major(node)}.`;
}

function enginesNode(packageJson: string): unknown {
  try {
    return (parseJsonText(packageJson) as { engines?: { node?: unknown } }).engines?.node;
  } catch {
    return undefined;
  }
}

const major = (version: string) => version.split(".")[0] ?? version;

async function readManifest(dir: string): Promise<Record<string, unknown> | undefined> {
  const text = await readWorkspaceText(dir, "package.json").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = parseJsonText(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
