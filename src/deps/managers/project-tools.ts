import type { ProjectTools } from "../../kernel/project-tools.js";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { readNpmConfig } from "../registry/npmrc.js";
import {
  corepackRegistryEnv,
  detectPackageManager,
  managerCommands,
  packageManager,
} from "./index.js";
import { findProgram } from "./tool-check.js";

/**
 * What a prompt job's commands need to start the checkout's package manager
 * (kernel/project-tools.ts), found as the dependency job finds it: the
 * release file the project keeps (yarn's `yarnPath`), or corepack for the
 * pnpm or yarn package.json pins, or for a lockfile's tool the PATH lacks.
 * Nothing for npm and bun, which the PATH has or not, nor for a project
 * without a package.json (or one that cannot be read: its own commands
 * will say so).
 */
export async function projectTools(
  dir: string,
  env: Readonly<Record<string, string>>,
): Promise<ProjectTools | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest) return undefined;
  const detected = await detectPackageManager(dir, manifest);
  const manager = packageManager(detected.name);
  // Unpinned, the PATH's own tool is as good as corepack's default.
  if (!detected.pinned && !detected.release && findProgram(manager.tool, env.PATH ?? "")) {
    return undefined;
  }
  const commands = managerCommands(detected);
  const shims = commands.shims(dir);
  const command = shims[manager.tool];
  if (!command) return undefined;
  const corepack = command.startsWith("corepack ");
  const corepackEnv = corepack
    ? corepackRegistryEnv((await readNpmConfig({ dir, env })).registry, env)
    : {};
  return {
    label: detected.release
      ? `${manager.label} from ${detected.release}`
      : `${detected.pinned ?? manager.tool} through corepack`,
    shims,
    env: (folder) => ({ ...commands.launchEnv(folder), ...corepackEnv }),
    fetch: corepack ? `${command} --version` : undefined,
    corepack: findProgram("corepack", env.PATH ?? ""),
  };
}

async function readManifest(dir: string): Promise<Record<string, unknown> | undefined> {
  const text = await readWorkspaceText(dir, "package.json").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
