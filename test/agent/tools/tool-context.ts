import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChangeRecord, ReadStamp, ToolContext } from "../../../src/agent/tools/define-tool.js";
import { buildShellEnv } from "../../../src/agent/tools/shell-env.js";
import {
  changeTracker,
  createSnapshotter,
  type WorkspaceSnapshotter,
} from "../../../src/agent/workspace-snapshot.js";
import { noSandbox } from "../../helpers/sandbox.js";
import { runSync } from "../../helpers/sync-spawn.js";

export interface TestWorkspace {
  /** Real path of the temp folder. */
  root: string;
  ctx: ToolContext;
  controller: AbortController;
  /** Changes tools reported through recordChange. */
  changes: ChangeRecord[];
  /** How many times trackChanges wrapped a call. */
  tracked: { count: number };
  write(path: string, content: string | Buffer): Promise<void>;
  git(...args: string[]): string;
  cleanup(): Promise<void>;
}

export interface WorkspaceOptions {
  git?: boolean;
  /**
   * Track run_shell's changes with the session's real snapshotter (made on
   * first use), as the agent loop does; default: run the command untracked.
   */
  snapshots?: boolean;
}

export async function createWorkspace(options: WorkspaceOptions = {}): Promise<TestWorkspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "patchwright-tools-")));
  const controller = new AbortController();
  const changes: ChangeRecord[] = [];
  const tracked = { count: 0 };
  const env = buildShellEnv(process.env);
  const record = (change: ChangeRecord) => {
    changes.push(change);
  };
  let snapshotter: Promise<WorkspaceSnapshotter> | undefined;
  const ctx: ToolContext = {
    root,
    signal: controller.signal,
    env,
    sandbox: noSandbox(root),
    reads: new Map<string, ReadStamp>(),
    recordChange: record,
    trackChanges: async (fn) => {
      tracked.count++;
      if (!options.snapshots) return { value: await fn(), changes: [] };
      snapshotter ??= createSnapshotter({ root, env });
      return changeTracker(await snapshotter, record)(fn);
    },
  };
  // Without git's `maintenance run --auto` after each commit (a process for
  // nothing in a folder that lives for one test; helpers/temp-dir.ts says so too).
  const git = (...args: string[]): string =>
    runSync(
      "git",
      [
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "maintenance.auto=false",
        ...args,
      ],
      { cwd: root, env },
    );
  if (options.git) git("init", "-q", "-b", "main");
  return {
    root,
    ctx,
    controller,
    changes,
    tracked,
    git,
    async write(path, content) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
    },
    async cleanup() {
      await (await snapshotter)?.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
