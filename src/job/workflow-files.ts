import type { RepoConfig } from "../config/schema.js";
import type { GitJobInput } from "./git-job.js";

/**
 * GitHub refuses a push that adds or changes `.github/workflows/**` unless
 * the token has `workflows: write`. Without it the agent hears so before it
 * starts, and its file tools refuse those paths with the reason, instead of
 * the job finding out at push time and losing the branch.
 */

export const WORKFLOW_RULES = [
  "write_file: .github/workflows/**",
  "edit_file: .github/workflows/**",
];

export const WORKFLOWS_NOTE =
  "Files under .github/workflows/ cannot be changed in this job: the GitHub token it pushes with lacks the `workflows: write` permission, so GitHub would refuse the whole push. Do not edit them; if a workflow must change, say exactly what to change in your final answer.";

export function workflowsBlocked(
  config: Pick<RepoConfig, "policy">,
): Pick<GitJobInput, "policy" | "extraRules"> {
  return {
    policy: { ...config.policy, deny: [...config.policy.deny, ...WORKFLOW_RULES] },
    extraRules: WORKFLOWS_NOTE,
  };
}
