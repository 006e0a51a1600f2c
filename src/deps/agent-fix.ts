import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { NetChange } from "../agent/file-history.js";
import { type AgentSessionResult, runAgentSession } from "../agent/session.js";
import { captureWorkspaceTree } from "../git/exact-tree.js";
import { treeChanges } from "../git/tree-guard.js";
import type { AttemptContext } from "./attempt.js";
import type { Update } from "./outdated.js";
import type { GroupRunContext } from "./run-deps-group.js";
import { type BumpFailure, buildDepsFixTask, DEPS_FIX_RULES } from "./task.js";
import { gatherUpstream, renderUpstream } from "./upstream.js";
import { TOOL_CACHE } from "./warm-install.js";

export interface AgentFix {
  session: AgentSessionResult;
  /** What the agent changed in the workspace that the group keeps (no lockfile, no installed packages). */
  kept: NetChange[];
  /** Paths where the agent's recorded changes and the workspace disagree, for the report. */
  drift: string[];
}

/**
 * The agent fixing what a group's bump broke, with what changed upstream in
 * hand. Its work is read from the workspace itself, not from the records:
 * the group's retries reset the tree and apply that work again.
 */
export async function runAgentFix(
  ctx: GroupRunContext,
  options: {
    dir: string;
    sandbox: AttemptContext["sandboxes"]["agent"];
    updates: readonly Update[];
    failure: BumpFailure;
  },
): Promise<AgentFix> {
  const { dir } = options;
  const upstream = await upstreamFor(ctx, options.updates);
  // The tool's cache holds registry responses: the agent never sees it.
  const hidden = await hideFolder(dir, TOOL_CACHE);
  let startTree: ReturnType<typeof captureWorkspaceTree>;
  let session: AgentSessionResult;
  let endTree: string;
  try {
    startTree = captureWorkspaceTree(dir, ctx.gitEnv);
    session = await runAgentSession({
      root: dir,
      task: buildDepsFixTask({ updates: options.updates, failure: options.failure, upstream }),
      model: ctx.model(),
      policy: ctx.policy,
      limits: ctx.limits,
      envSource: ctx.envSource,
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: ctx.onEvent,
      sandbox: options.sandbox,
      extraRules: DEPS_FIX_RULES,
      beforeTools: startTree,
    });
    endTree = await captureWorkspaceTree(dir, ctx.gitEnv);
  } finally {
    await hidden.restore();
  }
  const isKept = (path: string) => isKeptPath(path, ctx.lockfilePath);
  const kept = (await treeChanges(dir, ctx.gitEnv, await startTree, endTree)).filter((c) =>
    isKept(c.path),
  );
  const drift = changedPathsDiffer(
    kept,
    session.history.netChanges().filter((c) => isKept(c.path)),
  );
  return { session, kept, drift };
}

/** The upstream changes of the group's packages, majors first, for the agent; never fails the group. */
async function upstreamFor(ctx: GroupRunContext, updates: readonly Update[]): Promise<string> {
  const source = ctx.upstream;
  if (!source) return "";
  ctx.onStep("Reading what changed upstream");
  const order = { major: 0, minor: 1, patch: 2 } as const;
  const picked = [...updates].sort((a, b) => order[a.type] - order[b.type]).slice(0, 6);
  const changes = await Promise.all(
    picked.map((u) => gatherUpstream(source, u, ctx.signal).catch(() => undefined)),
  );
  return renderUpstream(changes.filter((c) => c !== undefined));
}

/** Moves a folder of the workspace beside it (outside every sandbox) until `restore`. */
async function hideFolder(dir: string, folder: string): Promise<{ restore(): Promise<void> }> {
  const inside = join(dir, folder);
  const aside = `${dir}.${folder.replace(/^\./, "")}`;
  const moved = await rename(inside, aside).then(
    () => true,
    () => false,
  );
  return {
    restore: async () => {
      if (!moved) return;
      await rm(inside, { recursive: true, force: true });
      await rename(aside, inside);
    },
  };
}

/** Paths where the recorded changes and the workspace's disagree. */
function changedPathsDiffer(workspace: NetChange[], recorded: NetChange[]): string[] {
  const seen = new Map(recorded.map((c) => [c.path, c.after]));
  const paths = new Set([...workspace.map((c) => c.path), ...seen.keys()]);
  const actual = new Map(workspace.map((c) => [c.path, c.after]));
  return [...paths]
    .filter((path) => {
      const a = actual.get(path);
      const b = seen.get(path);
      if (a === undefined || b === undefined) return true;
      return a === null || b === null ? a !== b : !a.equals(b);
    })
    .sort();
}

/** The lockfile is always the tool's to write, and installed packages and its cache are never the repository's. */
function isKeptPath(path: string, lockfilePath: string | undefined): boolean {
  const parts = path.split("/");
  return path !== lockfilePath && !parts.includes("node_modules") && parts[0] !== TOOL_CACHE;
}
