import type { GitEnv } from "../git/git-client.js";
import { gitMetadataPaths } from "../git/workspace/git-metadata.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import type { Sandbox, SandboxLauncher } from "../sandbox/sandbox.js";

/** A job's two sandboxes: one workspace, two networks (setup needs installs; the agent does not). */
export interface WorksiteSandboxes {
  setup: Sandbox;
  agent: Sandbox;
  close(): Promise<void>;
}

export async function openWorksiteSandboxes(
  launcher: SandboxLauncher,
  dir: string,
  env: GitEnv,
  networks: { network: NetworkPolicy; setupNetwork: NetworkPolicy },
  /** The job's own folders beside the workspace (its tools), writable in both. */
  shared: readonly string[] = [],
): Promise<WorksiteSandboxes> {
  // The git metadata the job's own git trusts (config, hooks) is read-only inside.
  const readOnly = await gitMetadataPaths(dir, env);
  const open = (network: NetworkPolicy) =>
    launcher.open({ workspace: dir, readOnly, network, shared });
  const setup = open(networks.setupNetwork);
  const agent = open(networks.network);
  return {
    setup,
    agent,
    close: async () => {
      await Promise.all([setup.close(), agent.close()]);
    },
  };
}
