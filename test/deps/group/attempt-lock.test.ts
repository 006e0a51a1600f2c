import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BumpFailure } from "../../../src/deps/fix/task.js";
import {
  type AttemptContext,
  attemptUpdates,
  type TryUpdates,
  tryBranchAsIs,
} from "../../../src/deps/group/attempt.js";
import { createPassedLocks } from "../../../src/deps/group/passed-tries.js";
import type { Update } from "../../../src/deps/update.js";
import { git, makeRepo } from "../../helpers/temp-dir.js";
import { testAttempt, testTools } from "./attempt-context.js";

/**
 * The same updates tried again in one job (the bump put back in place for
 * the agent after the branch as it is was tried): the lockfile step that
 * passed is not run again, its files come back, and the install runs as
 * ever. The tools here write what they did to logs outside the checkout.
 */

const update: Update = {
  name: "fx",
  from: "1.0.0",
  to: "1.0.1",
  type: "patch",
  locations: [
    {
      manifest: "package.json",
      section: "dependencies",
      spec: "1.0.0",
      newSpec: "1.0.1",
      from: "1.0.0",
    },
  ],
  links: {},
  newInstallScripts: [],
  passedOver: [],
};

/** npm's lockfile for package.json's fx, and a line in `log` per run (a run's number in the lockfile). */
const LOCK_SCRIPT = `
const fs = require("node:fs");
const [log, failFirst] = process.argv.slice(2);
const runs = (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\\n").filter(Boolean).length : 0) + 1;
fs.appendFileSync(log, "locked\\n");
if (failFirst === "fail-first" && runs === 1) { console.error("registry unreachable"); process.exit(1); }
const fx = JSON.parse(fs.readFileSync("package.json", "utf8")).dependencies.fx;
fs.writeFileSync("package-lock.json", JSON.stringify({
  lockfileVersion: 3,
  packages: { "": { dependencies: { fx } }, "node_modules/fx": { version: fx, run: runs } },
}, null, 2) + "\\n");
`;

/** The checks fail with fx 1.0.1 in package.json: the bump breaks them, the branch passes. */
const BREAKS_WITH_THE_BUMP = `grep -q '"fx": "1.0.1"' package.json && exit 1 || exit 0`;
/** An install that takes only a lockfile the tool made (it numbers its runs), not the committed one. */
const ONLY_THE_TOOLS_LOCKFILE = `node -e "process.exit(require('./package-lock.json').packages['node_modules/fx'].run ? 0 : 1)"`;

async function world(
  options: { failFirstLock?: boolean; verify?: string; installCheck?: string } = {},
) {
  const logs = await mkdtemp(join(tmpdir(), "pw-attempt-lock-"));
  const script = join(logs, "lock.cjs");
  await writeFile(script, LOCK_SCRIPT);
  const lockLog = join(logs, "locks.log");
  const installLog = join(logs, "installs.log");
  const dir = await makeRepo({
    "package.json": `${JSON.stringify({ name: "app", dependencies: { fx: "1.0.0" } }, null, 2)}\n`,
    "package-lock.json": `${JSON.stringify({
      lockfileVersion: 3,
      packages: { "": { dependencies: { fx: "1.0.0" } }, "node_modules/fx": { version: "1.0.0" } },
    })}\n`,
    ".gitignore": "node_modules\n",
  });
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", "the project");
  const tools = testTools({
    install: `echo install >> ${installLog}${options.installCheck ? ` && ${options.installCheck}` : ""}`,
    verify: options.verify ?? "exit 1",
    lockfileCommand: () =>
      `node ${script} ${lockLog} ${options.failFirstLock ? "fail-first" : "always"}`,
    manifests: ["package.json"],
    lockfilePath: "package-lock.json",
  });
  const ctx = testAttempt(dir, tools, { passed: new Map(), locked: createPassedLocks() });
  const tries: TryUpdates = (updates, extra, tryOptions) =>
    attemptUpdates(ctx, updates, extra, tryOptions);
  const count = async (log: string) =>
    (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return {
    dir,
    ctx,
    locks: () => count(lockLog),
    installs: () => count(installLog),
    lockfile: () => readFile(join(dir, "package-lock.json"), "utf8"),
    tries,
  };
}

describe("the same updates tried again in a job", () => {
  it("takes the lockfile step's files from the first try, and installs them again", async () => {
    const w = await world();
    const first = await attemptUpdates(w.ctx, [update]);
    expect(first.failure?.stage).toBe("verify");
    const locked = await w.lockfile();
    expect(JSON.parse(locked).packages["node_modules/fx"]).toEqual({ version: "1.0.1", run: 1 });
    // The branch as it is: a lockfile step of its own.
    await attemptUpdates(w.ctx, []);
    expect(await w.locks()).toBe(2);
    expect(JSON.parse(await w.lockfile()).packages["node_modules/fx"].version).toBe("1.0.0");

    // Put back for the agent: no checks, the same lockfile, the tree installed again.
    const again = await attemptUpdates({ ...w.ctx, tools: { ...w.ctx.tools, verify: null } }, [
      update,
    ]);
    expect(again).toMatchObject({ passed: true, files: ["package.json", "package-lock.json"] });
    expect(await w.locks()).toBe(2);
    expect(await w.lockfile()).toBe(locked);
    expect(JSON.parse(await readFile(join(w.dir, "package.json"), "utf8")).dependencies).toEqual({
      fx: "1.0.1",
    });
    expect(await w.installs()).toBe(3);
  });

  it("runs the lockfile step again on the agent's files, and after a step that failed", async () => {
    const w = await world({ failFirstLock: true });
    const first = await attemptUpdates(w.ctx, [update]);
    expect(first.failure?.stage).toBe("lockfile");
    expect(first.failure?.result.outputTail).toContain("registry unreachable");
    // A failure (perhaps the network's for a moment) is tried again.
    const second = await attemptUpdates(w.ctx, [update]);
    expect(second.failure?.stage).toBe("verify");
    expect(await w.locks()).toBe(2);
    // The agent's files are another start: its package.json may change what is locked.
    const agentFiles = new Map([["index.js", Buffer.from("module.exports = 1;\n")]]);
    await attemptUpdates(w.ctx, [update], agentFiles);
    expect(await w.locks()).toBe(3);
    // The same agent's files again: kept.
    await attemptUpdates(w.ctx, [update], agentFiles);
    expect(await w.locks()).toBe(3);
  });
});

/**
 * The branch tried as it is after a bump failed (is the failure the
 * updates'?): past a lockfile step that passed, its own lockfile installed
 * as committed, without a lockfile step of its own.
 */
describe("the branch as it is, after a failed bump", () => {
  it("installs the committed lockfile after a bump whose checks failed: no lockfile step", async () => {
    const w = await world({ verify: BREAKS_WITH_THE_BUMP });
    const failure = await failedBump(w, "verify");
    const committed = JSON.parse(git(w.dir, "show", "HEAD:package-lock.json"));
    const bare = await tryBranchAsIs(w.tries, failure);
    expect(bare).toMatchObject({ passed: true, files: [] });
    expect([await w.locks(), await w.installs()]).toEqual([1, 2]);
    expect(JSON.parse(await w.lockfile())).toEqual(committed);
    // The next group's bump fails too: the same branch, its pass kept for the job.
    const steps: string[] = [];
    const again = await tryBranchAsIs(
      (updates, extra, options) => attemptUpdates(withSteps(w.ctx, steps), updates, extra, options),
      failure,
    );
    expect(again.passed).toBe(true);
    expect(steps).toEqual([
      "Not checked again: `" +
        BREAKS_WITH_THE_BUMP +
        "` passed on these same files earlier in this job",
    ]);
    expect([await w.locks(), await w.installs()]).toEqual([1, 2]);
    // A try of no updates with the lockfile step is another try: that pass is not its.
    expect((await w.tries([])).passed).toBe(true);
    expect([await w.locks(), await w.installs()]).toEqual([2, 3]);
  });

  it("runs the lockfile step when the committed lockfile does not install, and goes on from there", async () => {
    const w = await world({ verify: BREAKS_WITH_THE_BUMP, installCheck: ONLY_THE_TOOLS_LOCKFILE });
    const failure = await failedBump(w, "verify");
    const bare = await tryBranchAsIs(w.tries, failure);
    // Not stopped as a branch that fails without the updates: it passes once locked.
    expect(bare.passed).toBe(true);
    expect([await w.locks(), await w.installs()]).toEqual([2, 3]);
    expect(JSON.parse(await w.lockfile()).packages["node_modules/fx"]).toEqual({
      version: "1.0.0",
      run: 2,
    });
  });

  it("runs the lockfile step after a bump whose lockfile step failed", async () => {
    const w = await world({ failFirstLock: true, verify: BREAKS_WITH_THE_BUMP });
    const failure = await failedBump(w, "lockfile");
    // A network that refuses the lockfile step may refuse the branch's own packages too: tried.
    const bare = await tryBranchAsIs(w.tries, failure);
    expect(bare.passed).toBe(true);
    expect([await w.locks(), await w.installs()]).toEqual([2, 1]);
  });

  it("is a try of nothing but the branch", async () => {
    const w = await world();
    await expect(w.tries([update], undefined, { asCommitted: true })).rejects.toThrow(
      "a try of the branch as committed has no updates and no files of its own",
    );
    expect(await w.locks()).toBe(0);
  });
});

/** The bump's failure, at `stage`. */
async function failedBump(w: { tries: TryUpdates }, stage: BumpFailure["stage"]) {
  const { failure } = await w.tries([update]);
  expect(failure?.stage).toBe(stage);
  if (!failure) throw new Error("the bump passed");
  return failure;
}

/** The context with its steps told to `steps`. */
function withSteps(ctx: AttemptContext, steps: string[]): AttemptContext {
  return { ...ctx, events: { step: (text) => steps.push(text) } };
}

describe("the job's kept lockfile steps", () => {
  it("keeps no more once the budget is spent: the first ones stay", () => {
    const locks = createPassedLocks(10);
    const lockfile = {
      command: "lock",
      passed: true,
      exit: "0",
      timedOut: false,
      durationMs: 1,
      outputTail: "",
    };
    locks.keep("a", { lockfile, files: new Map([["package-lock.json", Buffer.alloc(6)]]) });
    locks.keep("b", { lockfile, files: new Map([["package-lock.json", Buffer.alloc(6)]]) });
    locks.keep("c", { lockfile, files: new Map([["package.json", null]]) });
    expect(locks.get("a")?.files.get("package-lock.json")?.length).toBe(6);
    expect(locks.get("b")).toBeUndefined();
    expect(locks.get("c")?.files.get("package.json")).toBeNull();
  });
});
