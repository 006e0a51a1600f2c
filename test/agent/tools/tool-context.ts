import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChangeRecord, ReadStamp, ToolContext } from "../../../src/agent/tools/define-tool.js";
import { buildShellEnv } from "../../../src/agent/tools/shell-env.js";
import { noSandbox } from "../../helpers/sandbox.js";

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

export async function createWorkspace(options: { git?: boolean } = {}): Promise<TestWorkspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "patchwright-tools-")));
  const controller = new AbortController();
  const changes: ChangeRecord[] = [];
  const tracked = { count: 0 };
  const env = buildShellEnv(process.env);
  const ctx: ToolContext = {
    root,
    signal: controller.signal,
    env,
    sandbox: noSandbox(root),
    reads: new Map<string, ReadStamp>(),
    recordChange: (change) => {
      changes.push(change);
    },
    trackChanges: async (fn) => {
      tracked.count++;
      return fn();
    },
  };
  const git = (...args: string[]): string =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
      cwd: root,
      env,
      encoding: "utf8",
    });
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
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
