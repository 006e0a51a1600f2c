import { rm } from "node:fs/promises";
import type { GitEnv } from "../git/git-client.js";
import { gitMetadataPaths } from "../git/workspace/git-metadata.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import type { Sandbox, SandboxLauncher } from "../sandbox/sandbox.js";
import { makeScratchDir } from "../scratch.js";

/** A job's two sandboxes: one workspace and one HOME, two networks (setup needs installs; the agent does not). */
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
  // One HOME for the job's commands, on disk: an install's cache and store
  // (ufo's pnpm store: 139 MB) were in each command's /tmp, in memory.
  const home = await makeScratchDir("job-home");
  const open = (network: NetworkPolicy) =>
    launcher.open({ workspace: dir, readOnly, network, shared, home });
  let setup: Sandbox | undefined;
  let agent: Sandbox;
  try {
    setup = open(networks.setupNetwork);
    agent = open(networks.network);
  } catch (error) {
    // No sandbox can start here (no bubblewrap): every job would leave its HOME behind.
    await setup?.close();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
  return {
    setup,
    agent,
    close: async () => {
      await Promise.all([setup.close(), agent.close()]);
      await rm(home, { recursive: true, force: true });
    },
  };
}
