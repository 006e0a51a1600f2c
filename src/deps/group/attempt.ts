import { chmod, lstat, rename } from "node:fs/promises";
import { join, relative } from "node:path";
import { errorMessage } from "../../error-message.js";
import type { GitEnv } from "../../git/git-client.js";
import type { JobEvents } from "../../kernel/events.js";
import { writeShims } from "../../kernel/project-tools.js";
import { type CommandResult, runCommand } from "../../kernel/run-command.js";
import type { WorksiteSandboxes } from "../../kernel/worksite-sandboxes.js";
import { realPathInside, writeWorkspaceFile } from "../../sandbox/host-files.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { BumpFailure } from "../fix/task.js";
import { applyBump, type CommandRunner } from "../managers/bump.js";
import { type LockedMismatch, mismatchReason } from "../managers/locked-check.js";
import { TOOL_CACHE } from "../managers/warm-install.js";
import { keepingReleaseModes, releaseSwaps } from "../managers/yarn/release-file.js";
import type { Update } from "../update.js";
import { readFiles, resetCheckout, writeFiles } from "./checkout.js";
import type { GroupTools } from "./context.js";
import {
  type PassedLocks,
  type PassedTries,
  type PassedTry,
  tryInput,
  tryStart,
} from "./passed-tries.js";

/**
 * One try of a set of updates in the workspace: back to the branch's clean
 * state, the agent's kept changes on top (when there are some), the bump,
 * the lockfile, the install, the checks. Every try starts from the
 * branch's files; the installed tree is kept and brought in line with the
 * lockfile (npm removes what it no longer lists), so a try pays only for
 * what its bump changes.
 */

export interface AttemptOutcome {
  passed: boolean;
  failure?: BumpFailure;
  verify?: CommandResult;
  /** Files the bump itself wrote. */
  files: string[];
  /** Updates the lockfile step locked at another version than planned: no fix can change that. */
  mismatched?: LockedMismatch[];
}

export interface AttemptContext {
  tools: GroupTools;
  dir: string;
  /** The cutoff of this group (the cooldown, or the age gate alone for security fixes). */
  before: Date | undefined;
  gitEnv: GitEnv;
  /** install (and the lockfile update) runs in `setup`, the checks in `agent`. */
  sandboxes: Pick<WorksiteSandboxes, "setup" | "agent">;
  clock: { now(): number };
  signal: AbortSignal;
  events: Pick<JobEvents, "step">;
  /** The job's tries that passed (passed-tries.ts): one is not run again. */
  passed?: PassedTries | undefined;
  /** The job's lockfile steps that passed (passed-tries.ts): one is not run again. */
  locked?: PassedLocks | undefined;
}

export interface TryOptions {
  /**
   * The branch with no updates and no files of the agent's, its lockfile
   * installed as committed (as its CI installs it): no lockfile step.
   */
  asCommitted?: boolean;
}

/** A try in one group's workspace: attemptUpdates with the group's context. */
export type TryUpdates = (
  updates: readonly Update[],
  extraFiles?: ReadonlyMap<string, Buffer | null>,
  options?: TryOptions,
) => Promise<AttemptOutcome>;

export async function attemptUpdates(
  ctx: AttemptContext,
  updates: readonly Update[],
  extraFiles?: ReadonlyMap<string, Buffer | null>,
  options: TryOptions = {},
): Promise<AttemptOutcome> {
  const asCommitted = options.asCommitted === true;
  if (asCommitted && (updates.length > 0 || extraFiles))
    throw new Error("a try of the branch as committed has no updates and no files of its own");
  await resetCheckout(ctx.dir, ctx.gitEnv);
  if (extraFiles) await writeFiles(ctx.dir, extraFiles);
  const verifyCommand = ctx.tools.verify;
  // Not the same try as one with the lockfile step: that one's files are the tool's.
  const commands = [
    ...(asCommitted ? ["(lockfile as committed)"] : []),
    ctx.tools.install,
    verifyCommand,
  ];
  const start =
    (ctx.passed && verifyCommand) || ctx.locked
      ? await tryStart({
          dir: ctx.dir,
          env: ctx.gitEnv,
          updates,
          extra: extraFiles,
          before: ctx.before,
        })
      : undefined;
  const input = start && ctx.passed && verifyCommand ? tryInput(start, commands) : undefined;
  const same = input === undefined ? undefined : ctx.passed?.get(input);
  if (same) {
    await keepingReleaseModes(ctx.dir, updates, () => writeFiles(ctx.dir, same.files));
    return checkedBefore(ctx, same);
  }
  const runner =
    (env: Record<string, string>, sandbox: Sandbox, step?: string): CommandRunner =>
    async (command) =>
      withRelativePaths(
        await runCommand({
          command,
          cwd: ctx.dir,
          env,
          sandbox,
          signal: ctx.signal,
          clock: ctx.clock,
          timeoutSeconds: ctx.tools.commandTimeoutSeconds,
          networkSetting: sandbox === ctx.sandboxes.setup ? "setup_network" : "network",
          ...(step ? { onNetworkTrouble: (note: string) => ctx.events.step(step, note) } : {}),
        }),
        ctx.dir,
      );

  // Written again for every try: a try's scripts could have changed them.
  const onPath = await writeToolShims(ctx.dir, ctx.tools.shims?.(ctx.dir));
  const toolEnv = onPath({
    ...ctx.tools.npmEnv,
    ...ctx.tools.cacheEnv?.(join(ctx.dir, TOOL_CACHE)),
  });
  const locked = start === undefined || asCommitted ? undefined : ctx.locked?.get(start);
  let bump: Awaited<ReturnType<typeof applyBump>> = { files: [] };
  // npm resolves a lockfile from an installed tree when it finds one, which
  // would carry versions over from an earlier try; the tree steps outside
  // the workspace (out of the sandbox's sight) while the lockfile is made.
  const installed = join(ctx.dir, "node_modules");
  const aside = `${ctx.dir}.node_modules`;
  const moved =
    !asCommitted &&
    !locked &&
    ctx.tools.hideTreeFromLockfile === true &&
    ctx.tools.lockfilePath !== undefined &&
    (await hasInstalledTree(ctx.dir));
  if (moved) await rename(installed, aside);
  try {
    if (locked) {
      await keepingReleaseModes(ctx.dir, updates, () => writeFiles(ctx.dir, locked.files));
      bump = { files: [...locked.files.keys()], lockfile: locked.lockfile };
    } else if (!asCommitted) {
      bump = await applyBump({
        dir: ctx.dir,
        updates,
        lockfilePath: ctx.tools.lockfilePath,
        run: runner(toolEnv, ctx.sandboxes.setup),
        before: ctx.before,
        lockfileCommand: ctx.tools.lockfileCommand,
        releaseBytes: ctx.tools.releaseBytes,
      });
      if (start !== undefined && bump.lockfile?.passed && !bump.mismatched)
        ctx.locked?.keep(start, {
          lockfile: bump.lockfile,
          files: await readFiles(ctx.dir, bump.files),
        });
    }
  } catch (error) {
    // A manifest the agent reshaped (a bumped dependency removed) cannot take the bump,
    // nor can a release file the registry does not give as it states.
    const message = errorMessage(error);
    const swaps = releaseSwaps(updates).map(({ swap }) => `, write ${swap.file}`);
    const result: CommandResult = {
      command: `edit package.json${swaps.join("")}`,
      passed: false,
      exit: "1",
      timedOut: false,
      durationMs: 0,
      outputTail: message,
    };
    return { passed: false, failure: { stage: "lockfile", result }, files: [] };
  } finally {
    if (moved) await rename(aside, installed);
  }
  if (bump.lockfile && !bump.lockfile.passed) {
    return {
      passed: false,
      failure: { stage: "lockfile", result: bump.lockfile },
      files: bump.files,
    };
  }
  if (bump.mismatched) {
    const result: CommandResult = {
      command: bump.lockfile?.command ?? "lockfile",
      passed: false,
      exit: "1",
      timedOut: false,
      durationMs: bump.lockfile?.durationMs ?? 0,
      outputTail: bump.mismatched.map(mismatchReason).join("\n"),
    };
    return {
      passed: false,
      failure: { stage: "lockfile", result },
      files: bump.files,
      mismatched: bump.mismatched,
    };
  }
  const command =
    ctx.tools.reinstall && (await hasInstalledTree(ctx.dir))
      ? ctx.tools.reinstall
      : ctx.tools.install;
  const installing = `Installing: ${command}`;
  ctx.events.step(installing);
  // An install into an existing tree may rewrite the manifests or the
  // lockfile; the bump's own versions of them are what is committed.
  const written = command === ctx.tools.install ? undefined : await readFiles(ctx.dir, bump.files);
  const install = await runner(toolEnv, ctx.sandboxes.setup, installing)(command);
  if (written) await writeFiles(ctx.dir, written);
  if (!install.passed)
    return { passed: false, failure: { stage: "install", result: install }, files: bump.files };
  if (!verifyCommand) return { passed: true, files: bump.files };
  const verifying = `Verifying: ${verifyCommand}`;
  ctx.events.step(verifying);
  // `corepack pnpm test` starts the release the lockfile step fetched: verify has no network to fetch it.
  const verifyEnv = onPath({
    ...ctx.tools.shellEnv,
    ...ctx.tools.launchEnv?.(join(ctx.dir, TOOL_CACHE)),
  });
  const verify = await runner(verifyEnv, ctx.sandboxes.agent, verifying)(verifyCommand);
  if (verify.passed && input !== undefined)
    ctx.passed?.set(input, { verify, files: await readFiles(ctx.dir, bump.files) });
  return verify.passed
    ? { passed: true, verify, files: bump.files }
    : { passed: false, verify, failure: { stage: "verify", result: verify }, files: bump.files };
}

/**
 * The branch as it is, for a bump that failed. Past a lockfile step that
 * passed with the updates, the branch's own lockfile is installed as
 * committed, as its CI installs it: locking it again runs the package
 * manager on manifests the branch already locked, to learn nothing. A lockfile
 * that does not install as committed (out of step with package.json) is
 * tried with the lockfile step, as every other try is, so it is no reason
 * to stop the group.
 */
export async function tryBranchAsIs(
  tryUpdates: TryUpdates,
  failure: BumpFailure,
): Promise<AttemptOutcome> {
  if (failure.stage === "lockfile") return tryUpdates([]);
  const committed = await tryUpdates([], undefined, { asCommitted: true });
  return committed.failure?.stage === "install" ? tryUpdates([]) : committed;
}

/** A try that passed earlier in the job (passed-tries.ts): said, and not run again. */
function checkedBefore(ctx: AttemptContext, earlier: PassedTry): AttemptOutcome {
  ctx.events.step(
    `Not checked again: \`${earlier.verify.command}\` passed on these same files earlier in this job`,
  );
  return { passed: true, verify: earlier.verify, files: [...earlier.files.keys()] };
}

/**
 * The tool's shims (`pnpm` running `corepack pnpm "$@"`) in the workspace's
 * tool cache. The sandboxed commands may have made a link of the folder or
 * a shim: the host writes through none.
 */
function writeToolShims(workspace: string, shims: Record<string, string> | undefined) {
  return writeShims(join(workspace, TOOL_CACHE, "bin"), shims ?? {}, async (path, text) => {
    const inside = relative(workspace, path);
    await writeWorkspaceFile(workspace, inside, Buffer.from(text));
    await chmod(await realPathInside(workspace, inside), 0o755);
  });
}

async function hasInstalledTree(dir: string): Promise<boolean> {
  return lstat(join(dir, "node_modules")).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Output names files relative to the repository: the workspace's own path means nothing to a reviewer. */
function withRelativePaths(result: CommandResult, dir: string): CommandResult {
  return {
    ...result,
    outputTail: result.outputTail.replaceAll(`${dir}/`, "").replaceAll(dir, "."),
  };
}
