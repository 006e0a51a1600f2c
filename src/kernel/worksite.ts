import { errorMessage } from "../error-message.js";
import type { GitEnv } from "../git/git-client.js";
import type { Workspace } from "../git/workspace/workspace.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import { type LauncherSource, launcherFrom } from "../sandbox/sandbox.js";
import { type JobTools, openJobTools, type ProjectToolsSource } from "./project-tools.js";
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
  /** The project's own tools (its pinned package manager), when it needs some (project-tools.ts). */
  tools?: JobTools | undefined;
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
  /** Finds the project's own tools in the checkout (JobServices.projectTools). */
  tools?: { source: ProjectToolsSource; env: Readonly<Record<string, string>> } | undefined;
  /** Told when the project's tools could not be read, or what the host lacks: the job goes on. */
  onWarning?: ((message: string) => void) | undefined;
}): Promise<OpenedWorksite> {
  let workspace: Workspace;
  try {
    workspace = await options.prepare();
  } catch (error) {
    return { error: { stage: "workspace", message: errorMessage(error) } };
  }
  let tools: JobTools | undefined;
  try {
    // Side by side: the Action probes bubblewrap when the first job asks.
    const found = projectTools(workspace.dir, options);
    const launcher = await launcherFrom(options.launcher).catch(async (error: unknown) => {
      await (await found.catch(() => undefined))?.close();
      throw error;
    });
    tools = await found;
    const sandboxes = await openWorksiteSandboxes(
      launcher,
      workspace.dir,
      options.env,
      options.networks,
      tools ? [tools.folder] : [],
    );
    return {
      worksite: {
        workspace,
        sandboxes,
        tools,
        close: async () => {
          await sandboxes.close();
          await tools?.close();
          await workspace.cleanup();
        },
      },
    };
  } catch (error) {
    await tools?.close();
    await workspace.cleanup();
    return { error: { stage: "sandbox", message: errorMessage(error) } };
  }
}

/** The job's tools folder for what the checkout needs; none when that cannot be read (said). */
async function projectTools(
  dir: string,
  options: Parameters<typeof openWorksite>[0],
): Promise<JobTools | undefined> {
  if (!options.tools) return undefined;
  let found: Awaited<ReturnType<ProjectToolsSource>>;
  try {
    found = await options.tools.source(dir, options.tools.env, options.onWarning);
  } catch (error) {
    options.onWarning?.(`the project's package manager could not be read: ${errorMessage(error)}`);
    return undefined;
  }
  return found ? openJobTools(found) : undefined;
}
