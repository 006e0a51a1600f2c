import { shellQuote } from "../../agent/tools/fs/text-file.js";
import type { DetectedManager, ManagerName, ManagerTools, PackageManager } from "./types.js";

/**
 * The command that starts a project's tool: `tools`' own (a test's local
 * binaries, an operator's installed ones), else the release file the
 * project keeps (yarn's `yarnPath`, run by Node: it is what any yarn would
 * hand over to), else the manager's launcher (corepack for pnpm and yarn,
 * so the version the project pins is the one used; bun from the PATH),
 * else the tool's own name (npm, from Node).
 */
export function toolCommand(
  manager: PackageManager,
  tools: ManagerTools = {},
  detected?: DetectedManager,
): string {
  const own = (tools as Partial<Record<ManagerName, string>>)[manager.name];
  const release = detected?.release ? `node ${shellQuote(detected.release)}` : undefined;
  return own ?? release ?? manager.launcher?.command ?? manager.tool;
}
