import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attemptUpdates } from "../../../src/deps/group/attempt.js";
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

async function world(options: { failFirstLock?: boolean } = {}) {
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
    install: `echo install >> ${installLog}`,
    verify: "exit 1",
    lockfileCommand: () =>
      `node ${script} ${lockLog} ${options.failFirstLock ? "fail-first" : "always"}`,
    manifests: ["package.json"],
    lockfilePath: "package-lock.json",
  });
  const ctx = testAttempt(dir, tools, { passed: new Map(), locked: createPassedLocks() });
  const count = async (log: string) =>
    (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return {
    dir,
    ctx,
    locks: () => count(lockLog),
    installs: () => count(installLog),
    lockfile: () => readFile(join(dir, "package-lock.json"), "utf8"),
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
