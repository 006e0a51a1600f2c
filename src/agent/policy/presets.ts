import type { ToolFacts } from "../tools/define-tool.js";
import type { PresetName, Verdict } from "./shell-args.js";

export type { PresetName } from "./shell-args.js";

/**
 * - read-only: read and search tools; shell commands that only read files
 *   inside the workspace; no file changes.
 * - default: read-only plus file edits inside the workspace and a list of
 *   local file, git, build and test commands; no network, no privileges.
 * - trusted: everything, including reads outside the workspace and code the
 *   policy cannot see through (`python -c "$X"`, piping into python), except
 *   the config's deny rules, `git push` (pushing is the job's business, never
 *   the agent's) and writes into .git/. To keep those two limits it still
 *   needs to see which program, git subcommand and git configuration run, so
 *   it denies what could hide a push: a command name, git subcommand or
 *   `sh -c` program from an expansion (`git $X`, `bash -c "$X"`), `eval`, a
 *   shell reading its program from a pipe, redirect or `<( )`, `git -c` built
 *   from an expansion or defining aliases or includes, and any GIT_CONFIG_*
 *   variable (or a variable whose name is hidden). These limits keep an honest
 *   model from pushing by mistake; a script file it wrote can still run
 *   anything, so the boundary is the sandbox, which holds no push credential.
 */
export const PRESET_NAMES = ["read-only", "default", "trusted"] as const;

/**
 * The preset's verdict on a call of a tool that is not a shell (paths, if
 * any, already known to be inside the workspace), from the facts the tool
 * declares: reading is always allowed, changing files needs more than
 * read-only, and anything else (an MCP tool) must say it is read-only or be
 * trusted, unless an allow rule names it.
 */
export function toolPresetDenial(
  preset: PresetName,
  /** No kind: a tool the registry does not hold. */
  tool: Pick<ToolFacts, "name"> & Partial<Pick<ToolFacts, "kind" | "readOnly">>,
  shown: string,
): Verdict {
  if (tool.readOnly === true) return undefined;
  const call = shown === "" ? tool.name : `${tool.name} ${shown}`;
  if (tool.kind === "write") {
    return preset === "read-only"
      ? `\`${call}\`: the read-only preset does not allow changing files; describe the change in your answer instead`
      : undefined;
  }
  if (preset === "trusted") return undefined;
  if (tool.kind === "external") {
    return `\`${tool.name}\` is not marked read-only by its server, so the ${preset} preset does not allow it; do without it, or a maintainer can add the allow rule \`${tool.name}\` to the policy config`;
  }
  return `\`${tool.name}\` is not a tool the policy knows, so the ${preset} preset does not allow it; use the file and shell tools`;
}
