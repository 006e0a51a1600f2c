import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { NetChange } from "../../agent/file-history.js";
import { type AgentSessionResult, runAgentSession } from "../../agent/session.js";
import { errorMessage } from "../../error-message.js";
import { captureWorkspaceTree } from "../../git/tree/exact-tree.js";
import { treeChanges } from "../../git/tree/tree-guard.js";
import type { AttemptContext } from "../group/attempt.js";
import { writeFiles } from "../group/checkout.js";
import type { GroupContext } from "../group/context.js";
import { TOOL_CACHE } from "../managers/warm-install.js";
import { upstreamOf } from "../registry/upstream.js";
import type { Update } from "../update.js";
import { type BumpFailure, buildDepsFixTask, DEPS_FIX_RULES } from "./task.js";

export interface AgentFix {
  session: AgentSessionResult;
  /** What the agent changed in the workspace that the group keeps (no lockfile, no installed packages). */
  kept: NetChange[];
  /** Paths where the agent's recorded changes and the workspace disagree, for the report. */
  drift: string[];
}

/** What broke, where: the group's workspace, its agent sandbox, its updates and their failure. */
export interface FixRequest {
  dir: string;
  sandbox: AttemptContext["sandboxes"]["agent"];
  updates: readonly Update[];
  failure: BumpFailure;
  /** What the agent's commands get besides the shell's environment (the project's tool on PATH). */
  shellEnv?: ((env: Record<string, string>) => Record<string, string>) | undefined;
}

/** The agent's work so far, as a checkpoint keeps it (see fix-checkpoint.ts). */
export interface FixProgress {
  kept: NetChange[];
  finished: boolean;
  stopReason: string;
  costUsd: number;
  summary: string;
}

/**
 * The agent fixing what a group's bump broke, with what changed upstream in
 * hand. Its work is read from the workspace itself, not from the records:
 * the group's retries reset the tree and apply that work again. With `save`,
 * the work is handed over after every turn that follows a change and once
 * at the end (checkpoints); with `resume`, an earlier run's unfinished work
 * is put back first and the agent is told to carry on from it.
 */
export async function runAgentFix(
  ctx: GroupContext,
  options: FixRequest & {
    save?: ((progress: FixProgress) => Promise<void>) | undefined;
    resume?: { files: ReadonlyMap<string, Buffer | null>; summary: string } | undefined;
    /** The step the agent's work shows as, once what changed upstream is read. */
    step: string;
  },
): Promise<AgentFix> {
  const { dir } = options;
  const upstream = await upstreamFor(ctx, options.updates);
  ctx.events.step(options.step);
  const isKept = (path: string) => isKeptPath(path, ctx.tools.lockfilePath);
  // The tool's cache holds registry responses: the agent never sees it.
  const hidden = await hideFolder(dir, TOOL_CACHE);
  let startTree: ReturnType<typeof captureWorkspaceTree>;
  let session: AgentSessionResult;
  let endTree: string;
  let saves: Promise<void> = Promise.resolve();
  let costUsd = 0;
  const keptSince = async (start: string, end: string) =>
    (await treeChanges(dir, ctx.gitEnv, start, end)).filter((c) => isKept(c.path));
  const save = (progress: () => Promise<FixProgress>) => {
    const saver = options.save;
    if (!saver) return;
    saves = saves
      .then(async () => saver(await progress()))
      .catch((error: unknown) =>
        ctx.events.step(`Could not save a checkpoint of the fix: ${errorMessage(error)}`),
      );
  };
  try {
    startTree = captureWorkspaceTree(dir, ctx.gitEnv);
    let task = buildDepsFixTask({ updates: options.updates, failure: options.failure, upstream });
    if (options.resume) {
      // Taken before the earlier work is put back, so the kept changes include it.
      await startTree;
      await writeFiles(dir, options.resume.files);
      task = `${task}\n\n${resumeFixNote(options.resume)}`;
    }
    session = await runAgentSession({
      root: dir,
      task,
      model: ctx.agent.model(),
      policy: ctx.agent.policy,
      limits: ctx.agent.limits,
      envSource: ctx.services.envSource,
      secrets: ctx.services.secrets.map((secret) => secret.value),
      clock: ctx.services.clock,
      signal: ctx.signal,
      onEvent: (event) => {
        ctx.events.agent(event);
        if (event.type === "usage") costUsd = event.totalCostUsd;
        // A turn's tools have all run once the next turn starts.
        if (event.type === "turn_start" && event.turn > 1 && options.save) {
          save(async () => ({
            kept: await keptSince(await startTree, await captureWorkspaceTree(dir, ctx.gitEnv)),
            finished: false,
            stopReason: "in_progress",
            costUsd,
            summary: options.resume?.summary ?? "",
          }));
        }
      },
      sandbox: options.sandbox,
      shellEnv: options.shellEnv,
      extraRules: DEPS_FIX_RULES,
      beforeTools: startTree,
    });
    endTree = await captureWorkspaceTree(dir, ctx.gitEnv);
  } catch (error) {
    // The checkpoints under way land before the failure goes up: none is left half pushed.
    await saves;
    throw error;
  } finally {
    await hidden.restore();
  }
  const kept = await keptSince(await startTree, endTree);
  // What this session recorded against what the workspace shows, leaving out
  // the earlier run's files put back as they were (patchwright wrote those).
  const recorded = session.history.netChanges().filter((c) => isKept(c.path));
  const touched = new Set(recorded.map((c) => c.path));
  const putBack = (c: NetChange) => {
    const earlier = options.resume?.files.get(c.path);
    return !touched.has(c.path) && earlier !== undefined && sameBytes(earlier, c.after);
  };
  const drift = changedPathsDiffer(
    kept.filter((c) => !putBack(c)),
    recorded,
  );
  // Stopped by a shutdown, the fix is unfinished: the next run carries on from it.
  const finished = ctx.signal?.aborted !== true;
  save(async () => ({
    kept,
    finished,
    stopReason: session.result.stopReason,
    costUsd: session.result.costUsd,
    summary: session.result.finalText,
  }));
  await saves;
  return { session, kept, drift };
}

/** What the agent is told when an earlier run's fix, cut short, is back in the workspace. */
function resumeFixNote(resume: { files: ReadonlyMap<string, Buffer | null> }): string {
  return [
    "Note: an earlier run of this fix was interrupted (the service restarted).",
    `Its changes are already back in the workspace: ${[...resume.files.keys()].join(", ") || "none"}.`,
    "Look at them first (git diff) and carry on from there; do not redo them.",
  ].join("\n");
}

/** The upstream changes of the group's packages, majors first, for the agent; never fails the group. */
async function upstreamFor(ctx: GroupContext, updates: readonly Update[]): Promise<string> {
  const source = ctx.agent.upstream;
  if (!source) return "";
  ctx.events.step("Reading what changed upstream");
  return upstreamOf(source, updates, ctx.signal);
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

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
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
      return !sameBytes(a, b);
    })
    .sort();
}

/** The lockfile is always the tool's to write, and installed packages and its cache are never the repository's. */
function isKeptPath(path: string, lockfilePath: string | undefined): boolean {
  const parts = path.split("/");
  return path !== lockfilePath && !parts.includes("node_modules") && parts[0] !== TOOL_CACHE;
}
