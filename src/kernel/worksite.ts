import { errorMessage } from "../error-message.js";
import type { GitEnv } from "../git/git-client.js";
import type { Workspace } from "../git/workspace/workspace.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import { type LauncherSource, launcherFrom } from "../sandbox/sandbox.js";
import { openWorksiteSandboxes, type WorksiteSandboxes } from "./worksite-sandboxes.js";

/**
 * Where every job kind works: a worktree on the job's branch and its two
 * sandboxes (setup, agent). Opened together, closed together; a failure
 * names the stage that broke, and whatever was opened is closed again.
 * (The "rooms" of docs/architecture.md are folders; this is a job's place.)
 */
export interface Worksite {
  workspace: Workspace;
  sandboxes: WorksiteSandboxes;
  close(): Promise<void>;
}

export type OpenedWorksite =
  | { worksite: Worksite }
  | { error: { stage: "workspace" | "sandbox"; message: string } };

export async function openWorksite(options: {
  prepare: () => Promise<Workspace>;
  /** Awaited once the workspace is there (JobServices.sandbox). */
  launcher: LauncherSource;
  env: GitEnv;
  networks: { network: NetworkPolicy; setupNetwork: NetworkPolicy };
}): Promise<OpenedWorksite> {
  let workspace: Workspace;
  try {
    workspace = await options.prepare();
  } catch (error) {
    return { error: { stage: "workspace", message: errorMessage(error) } };
  }
  try {
    const sandboxes = await openWorksiteSandboxes(
      await launcherFrom(options.launcher),
      workspace.dir,
      options.env,
      options.networks,
    );
    return {
      worksite: {
        workspace,
        sandboxes,
        close: async () => {
          await sandboxes.close();
          await workspace.cleanup();
        },
      },
    };
  } catch (error) {
    await workspace.cleanup();
    return { error: { stage: "sandbox", message: errorMessage(error) } };
  }
}
