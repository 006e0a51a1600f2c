import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readNpmSettings } from "../src/sandbox/trust/npm-settings.js";
import { ephemeralStart, freePort } from "./helpers/free-port.js";
import { gitTestEnv } from "./helpers/git-repos.js";
import { MIN_FREE_BYTES, makeRunTemp, type RunTempProbes } from "./helpers/run-temp.js";
import { runSync, SyncRunError } from "./helpers/sync-spawn.js";
import { makeTempDir } from "./helpers/temp-dir.js";

/**
 * The suite's own environment, whatever machine runs it: offline tests need
 * none of the host's CA or npm settings, and on a host that sets them (this
 * VM: NODE_EXTRA_CA_CERTS and npm's global `cafile` name the system bundle)
 * each Node 20 process would parse 144 certificates as it starts
 * (test/global-setup.ts, test/helpers/git-repos.ts say why).
 */
describe("the tests' environment", () => {
  it("gives the processes a test starts no CA bundle of the host's", () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    const seen = execFileSync(process.execPath, ["-p", "process.env.NODE_EXTRA_CA_CERTS"], {
      encoding: "utf8",
    });
    expect(seen.trim()).toBe("undefined");
  });

  it("reads no npm global config of the host's where the product looks for its trust", async () => {
    const home = join(await makeTempDir("pw-test-env-"), "home");
    const env = gitTestEnv(home);
    expect(env.NPM_CONFIG_GLOBALCONFIG?.startsWith(home)).toBe(true);
    // What sandbox/trust/host-trust.ts would hand a job's sandbox.
    const settings = await readNpmSettings({ env, home, nodePath: process.execPath });
    expect(settings.values).toEqual({});
    expect(settings.caFiles).toEqual([]);
  });
});

describe("the run's temporary folder", () => {
  it("is the run's own, and the processes a test starts inherit it", () => {
    expect(basename(tmpdir())).toMatch(/^pw-run-/);
    const seen = execFileSync(process.execPath, ["-p", "require('node:os').tmpdir()"], {
      encoding: "utf8",
    });
    expect(seen.trim()).toBe(tmpdir());
  });

  const TMPFS = 0x01021994;
  const EXT4 = 0xef53;
  /** A stand-in for /dev/shm, with the filesystem and the mount's options a case gives. */
  async function world(fs: { type: number; free: number } | undefined, runs = true) {
    const root = await makeTempDir("pw-run-temp-");
    const ram = join(root, "shm");
    const set = join(root, "set");
    mkdirSync(ram);
    mkdirSync(set);
    const probes: RunTempProbes = {
      statfs: (path) =>
        path === ram && fs ? { type: fs.type, bavail: fs.free / 4096, bsize: 4096 } : undefined,
      canRun: () => runs,
    };
    return { ram, set, probes };
  }

  it("goes in a tmpfs with room whose programs run", async () => {
    const { ram, probes } = await world({ type: TMPFS, free: MIN_FREE_BYTES });
    const made = makeRunTemp({}, { ramDir: ram, probes });
    expect(dirname(made.dir)).toBe(ram);
    expect(basename(made.dir)).toMatch(/^pw-run-/);
  });

  it("goes in the TMPDIR a caller set, tmpfs or not", async () => {
    const { ram, set, probes } = await world({ type: TMPFS, free: MIN_FREE_BYTES });
    expect(dirname(makeRunTemp({ TMPDIR: set }, { ramDir: ram, probes }).dir)).toBe(set);
  });

  it.each([
    ["a disk's filesystem", { type: EXT4, free: 100 * MIN_FREE_BYTES }, true, "is not a tmpfs"],
    ["a small tmpfs (Docker's 64 MB)", { type: TMPFS, free: 64 * 1024 ** 2 }, true, "GiB free"],
    ["a noexec tmpfs", { type: TMPFS, free: MIN_FREE_BYTES }, false, "noexec"],
    ["no such folder", undefined, true, "is not there"],
  ])("stays in the system's temporary folder on %s", async (_, fs, runs, why) => {
    const { ram, probes } = await world(fs, runs);
    const made = makeRunTemp({}, { ramDir: ram, probes });
    rmSync(made.dir, { recursive: true });
    expect(dirname(made.dir)).toBe(tmpdir());
    expect(made.why).toContain(why);
    // Nothing is left where it was refused.
    expect(readdirSync(ram)).toEqual([]);
  });
});

describe("the tests' synchronous programs (helpers/sync-spawn.ts)", () => {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

  it("run in a helper process, not in a fork of the worker", () => {
    const parent = Number(runSync("sh", ["-c", "echo $PPID"], { cwd: tmpdir(), env }));
    expect(parent).not.toBe(process.pid);
    expect(parent).toBeGreaterThan(0);
  });

  it("get their folder, environment and input, and give back their output whole", async () => {
    const cwd = await makeTempDir("pw-sync-spawn-test-");
    const out = runSync("sh", ["-c", 'cat; pwd; echo "$ONLY"'], {
      cwd,
      env: { ...env, ONLY: "this" },
      input: "line in\n",
    });
    expect(out).toBe(`line in\n${cwd}\nthis\n`);
    // Bytes, not text: a blob the Git Data API fake writes.
    const bytes = runSync("od", ["-An", "-tx1"], { cwd, env, input: Buffer.from([0, 255, 10]) });
    expect(bytes.trim()).toBe("00 ff 0a");
    // More than execFileSync's default 1 MiB of output.
    const big = runSync("sh", ["-c", "head -c 3000000 /dev/zero | tr '\\0' a"], { cwd, env });
    expect(big.length).toBe(3_000_000);
  });

  it("fail as execFileSync does, with the status and what the program said", () => {
    let thrown: unknown;
    try {
      runSync("sh", ["-c", "echo partial; echo broken >&2; exit 3"], { cwd: tmpdir(), env });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SyncRunError);
    expect(thrown).toMatchObject({ status: 3, stdout: "partial\n", stderr: "broken\n" });
    expect((thrown as Error).message).toBe(
      "Command failed: sh -c echo partial; echo broken >&2; exit 3\nbroken\n",
    );
    expect(() => runSync("no-such-program-here", [], { cwd: tmpdir(), env })).toThrow(/ENOENT/);
  });
});

describe("the ports tests give the processes they start (helpers/free-port.ts)", () => {
  it("come from below the kernel's ephemeral range, which port-0 servers draw from", async () => {
    const start = ephemeralStart();
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) expect(port).toBeLessThan(start);
    // What the other tests' servers get: never one of those.
    const servers = await Promise.all(Array.from({ length: 40 }, () => listening(0)));
    try {
      for (const server of servers) expect(portOf(server)).toBeGreaterThanOrEqual(start);
    } finally {
      await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
    }
  });

  it("skip a port something listens on", async () => {
    const before = await freePort();
    // The next one in this worker's block, taken.
    const taken = await listening(before + 1);
    try {
      expect(await freePort()).toBe(before + 2);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it("read the range's start as Linux writes it, and assume 32768 without it", () => {
    expect(ephemeralStart(() => "32768\t60999\n")).toBe(32768);
    expect(ephemeralStart(() => "49152 65535")).toBe(49152);
    expect(ephemeralStart(() => "garbage")).toBe(32768);
    expect(
      ephemeralStart(() => {
        throw new Error("ENOENT");
      }),
    ).toBe(32768);
  });
});

function listening(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : -1;
}
