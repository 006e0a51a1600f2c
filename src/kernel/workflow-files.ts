import type { PolicyConfig } from "../agent/policy/policy.js";
import { defaultTools } from "../agent/tools/index.js";
import type { RepoConfig } from "../config/schema.js";
import { type GitEnv, runGit } from "../git/git-client.js";

/**
 * GitHub refuses a push that adds or changes `.github/workflows/**` unless
 * the token has `workflows: write`. Without it the agent hears so before it
 * starts and every tool that writes files refuses those paths with the
 * reason. A shell command can still write there (cp, sed -i, git mv): the
 * push step then stops before git, naming the files and the permission
 * (workflowsRefusal), rather than quietly pushing the rest. A change with a
 * piece silently taken out would not be the change that was asked for.
 */

const WORKFLOWS = ".github/workflows";

/** One deny rule per tool that writes files, from the tools' own facts. */
export function workflowRules(tools = defaultTools()): string[] {
  return tools.filter((tool) => tool.kind === "write").map((t) => `${t.name}: ${WORKFLOWS}/**`);
}

export const WORKFLOWS_NOTE =
  "Files under .github/workflows/ cannot be changed in this job: the GitHub token it pushes with lacks the `workflows: write` permission, so GitHub would refuse the whole push. Do not edit them, with file tools or shell commands; if a workflow must change, say exactly what to change in your final answer.";

export function workflowsBlocked(config: Pick<RepoConfig, "policy">): {
  policy: PolicyConfig;
  extraRules: string;
  workflowsLocked: true;
} {
  return {
    policy: { ...config.policy, deny: [...config.policy.deny, ...workflowRules()] },
    extraRules: WORKFLOWS_NOTE,
    workflowsLocked: true,
  };
}

/**
 * Workflow files whose content at HEAD differs from every one of `from`:
 * the job's own changes to them (a branch update passes its old tip and the
 * base, so what the base brought in is not counted). Deleted and renamed
 * files count too; GitHub refuses those as well.
 */
export async function changedWorkflowFiles(
  dir: string,
  env: GitEnv,
  from: readonly string[],
): Promise<string[]> {
  let changed: string[] | undefined;
  for (const commit of from) {
    const out = await runGit(
      dir,
      ["diff", "--name-only", "--no-renames", "-z", commit, "HEAD", "--", WORKFLOWS],
      { env },
    );
    const names = out.split("\0").filter(Boolean);
    changed = changed ? changed.filter((name) => names.includes(name)) : names;
  }
  return changed ?? [];
}

export function workflowsRefusal(files: readonly string[]): string {
  const shown = files.slice(0, 10).map((file) => `\`${file}\``);
  const more = files.length > shown.length ? ` and ${files.length - shown.length} more` : "";
  return [
    `Nothing was pushed: the job's commits change ${shown.join(", ")}${more}, and the token it pushes with lacks the \`workflows: write\` permission, so GitHub would refuse the whole push.`,
    "Give the GitHub App the Workflows permission (read and write), or run the Action with a token that has it; or ask again without changes to .github/workflows/.",
  ].join(" ");
}
