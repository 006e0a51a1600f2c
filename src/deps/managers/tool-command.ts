import type { ManagerName, ManagerTools, PackageManager } from "./types.js";

/**
 * The command that starts a project's tool: `tools`' own (a test's local
 * binaries, an operator's installed ones), else the manager's launcher
 * (corepack for pnpm and yarn, so the version the project pins is the one
 * used; bun from the PATH), else the tool's own name (npm, from Node).
 */
export function toolCommand(manager: PackageManager, tools: ManagerTools = {}): string {
  const own = (tools as Partial<Record<ManagerName, string>>)[manager.name];
  return own ?? manager.launcher?.command ?? manager.tool;
}
