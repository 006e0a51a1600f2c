import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import {
  type GroupRunOptions,
  runDirectly,
  runInGroup,
  type StreamEvents,
  streamDirectly,
  streamInGroup,
  useSpawnHelper,
} from "../src/spawner.js";
import { spawnHelperPid } from "./helpers/spawn-helper-up.js";

/**
 * Programs started by the helper process (src/spawner.ts) behave as those
 * started here: the same exit codes, bytes, stdin and start errors, and a
 * kill that reaches what they started. The helper is a separate process with
 * no environment of its own, it keeps no process alive, and it ends with
 * the process that started it.
 */

const run = promisify(execFile);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const options: GroupRunOptions = { cwd: "/tmp", env };

afterAll(() => useSpawnHelper(true));

/** Running (a zombie is dead: it waits only for a parent to read its exit). */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

describe("runInGroup", () => {
  it("runs programs in the helper, a process with no environment of its own", async () => {
    const pid = await spawnHelperPid();
    expect(pid).not.toBe(process.pid);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    expect(environ).not.toContain("PATH=");
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("process.send({ ready: true })");
  });

  const cases: Array<[string, string, string[], Partial<GroupRunOptions>]> = [
    ["exit code and both streams", "sh", ["-c", "printf out; printf err >&2; exit 3"], {}],
    ["bytes that are not text", "printf", ["\\377\\000\\376"], {}],
    [
      "stdin",
      "sh",
      ["-c", 'tr a-z A-Z; echo "[$FOO]"'],
      { input: "hello\n", env: { ...env, FOO: "bar" } },
    ],
    ["a large output", "head", ["-c", "3000000", "/dev/zero"], {}],
    // The helper gives such a program /dev/null: the same end of file as an empty pipe.
    ["stdin without input", "sh", ["-c", "cat; echo end"], {}],
  ];
  for (const [what, file, args, extra] of cases) {
    it(`gives the same ${what} through the helper as directly`, async () => {
      await spawnHelperPid();
      const direct = await runDirectly(file, args, { ...options, ...extra }).done;
      const helped = await runInGroup(file, args, { ...options, ...extra }).done;
      expect(helped.code).toBe(direct.code);
      expect(Buffer.compare(helped.stdout, direct.stdout)).toBe(0);
      expect(Buffer.compare(helped.stderr, direct.stderr)).toBe(0);
      expect(Buffer.isBuffer(helped.stdout)).toBe(true);
    });
  }

  it("gives the same output through pipes when it has nowhere to write files", async () => {
    const pid = await spawnHelperPid();
    const folders = readdirSync(tmpdir()).filter((name) =>
      name.startsWith(`patchwright-tmp-spawner-${pid}-`),
    );
    expect(folders).toHaveLength(1);
    // What a full or read-only disk does to the helper's output files.
    rmSync(join(tmpdir(), folders[0] ?? ""), { recursive: true, force: true });
    const [file, args] = [
      "sh",
      ["-c", "printf out; head -c 200000 /dev/zero >&2; exit 4"],
    ] as const;
    const direct = await runDirectly(file, [...args], options).done;
    const helped = await runInGroup(file, [...args], options).done;
    expect(helped.code).toBe(4);
    expect(helped.stdout.toString()).toBe("out");
    expect(Buffer.compare(helped.stderr, direct.stderr)).toBe(0);
  });

  it("rejects as directly when the program or the folder is not there", async () => {
    await spawnHelperPid();
    for (const [file, cwd] of [
      ["no-such-program-here", "/tmp"],
      ["sh", "/tmp/no/such/folder"],
    ] as const) {
      const direct = await runDirectly(file, [], { ...options, cwd }).done.catch((e: Error) => e);
      const helped = await runInGroup(file, [], { ...options, cwd }).done.catch((e: Error) => e);
      expect(helped).toBeInstanceOf(Error);
      expect((helped as NodeJS.ErrnoException).code).toBe("ENOENT");
      expect((helped as Error).message).toBe((direct as Error).message);
    }
  });

  it("kills the program and what it started, through the helper or not", async () => {
    await spawnHelperPid();
    for (const start of [runDirectly, runInGroup]) {
      const started = start("sh", ["-c", "sleep 30 & echo $!; wait"], options);
      await new Promise((wait) => setTimeout(wait, 200));
      started.killGroup("SIGTERM");
      const result = await started.done;
      expect(result.code).toBeNull();
      const sleeper = Number(result.stdout.toString().trim());
      expect(sleeper).toBeGreaterThan(0);
      await new Promise((wait) => setTimeout(wait, 100));
      expect(alive(sleeper)).toBe(false);
    }
  });

  /** Runs a program streamed; what its events said, in order (output joined by stream). */
  function streamed(
    start: typeof streamInGroup,
    file: string,
    args: string[],
    cwd = "/tmp",
  ): Promise<{ events: string[]; stdout: Buffer; stderr: Buffer }> {
    return new Promise((resolve) => {
      const events: string[] = [];
      const out: Record<"stdout" | "stderr", Buffer[]> = { stdout: [], stderr: [] };
      const note = (event: string) => {
        if (events.at(-1) !== event) events.push(event);
      };
      const done = (last: string) => {
        note(last);
        resolve({
          events,
          stdout: Buffer.concat(out.stdout),
          stderr: Buffer.concat(out.stderr),
        });
      };
      const listener: StreamEvents = {
        output: (stream, chunk) => {
          note("output");
          out[stream].push(chunk);
        },
        error: (error) => done(`error ${(error as NodeJS.ErrnoException).code}`),
        exit: (code, signal) => note(`exit ${code} ${signal}`),
        close: () => done("close"),
      };
      start(file, args, { ...options, cwd }, listener);
    });
  }

  it("streams the same output, exit and close through the helper as directly", async () => {
    await spawnHelperPid();
    const args = ["-c", "printf out; head -c 3000000 /dev/zero >&2; printf more; exit 3"];
    const direct = await streamed(streamDirectly, "sh", args);
    const helped = await streamed(streamInGroup, "sh", args);
    expect(helped.events).toEqual(["output", "exit 3 null", "close"]);
    expect(direct.events).toEqual(helped.events);
    expect(helped.stdout.toString()).toBe("outmore");
    expect(Buffer.compare(helped.stderr, direct.stderr)).toBe(0);
    expect(helped.stderr.length).toBe(3_000_000);
  });

  it("says a streamed program could not start, as directly", async () => {
    await spawnHelperPid();
    for (const [file, cwd] of [
      ["no-such-program-here", "/tmp"],
      ["sh", "/tmp/no/such/folder"],
    ] as const) {
      const direct = await streamed(streamDirectly, file, [], cwd);
      const helped = await streamed(streamInGroup, file, [], cwd);
      expect(helped.events).toEqual(["error ENOENT"]);
      expect(direct.events).toEqual(helped.events);
    }
  });

  it("signals a streamed program's group from here, and knows when it is gone", async () => {
    await spawnHelperPid();
    for (const start of [streamDirectly, streamInGroup]) {
      let sleeper = 0;
      const exited = new Promise<string>((resolve) => {
        const run = start("sh", ["-c", "sleep 30 & echo $!; wait"], options, {
          output: (_stream, chunk) => {
            sleeper = Number(chunk.toString().trim());
            run.killGroup("SIGTERM");
          },
          error: () => resolve("error"),
          exit: async (code, signal) => {
            // Its group's last process may take a moment to go (and be reaped).
            for (let i = 0; i < 150 && run.groupAlive(); i++)
              await new Promise((wait) => setTimeout(wait, 20));
            resolve(`${code} ${signal} alive=${run.groupAlive()}`);
          },
          close: () => {},
        });
      });
      expect(await exited).toBe("null SIGTERM alive=false");
      expect(alive(sleeper)).toBe(false);
    }
  });

  it("outlives the signals that stop its process, which may still need git", async () => {
    const pid = await spawnHelperPid();
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.kill(pid, signal);
    await new Promise((wait) => setTimeout(wait, 100));
    expect(await spawnHelperPid()).toBe(pid);
  });

  it("starts programs here when told not to use the helper", async () => {
    await spawnHelperPid();
    useSpawnHelper(false);
    const { stdout } = await runInGroup("sh", ["-c", "echo $PPID"], options).done;
    useSpawnHelper(true);
    expect(Number(stdout.toString().trim())).toBe(process.pid);
  });

  it("keeps no process alive once idle, ends with its process, and keeps its files in its TMPDIR", async () => {
    const script = `
      import { readdirSync } from "node:fs";
      import { runInGroup } from ${JSON.stringify(join(process.cwd(), "src/spawner.ts"))};
      for (let i = 0; i < 100; i++) {
        const { stdout } = await runInGroup("sh", ["-c", "echo $PPID"], { cwd: "/tmp", env: { PATH: process.env.PATH } }).done;
        if (Number(stdout) !== process.pid) {
          console.log(String(stdout).trim(), readdirSync(process.env.TMPDIR).join(" "));
          break;
        }
        await new Promise((wait) => setTimeout(wait, 20));
      }`;
    // The operator's temporary folder, not /tmp: where the sweep of scratch folders looks.
    const own = await mkdtemp(join(tmpdir(), "pw-spawner-tmpdir-"));
    const started = performance.now();
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: process.cwd(), timeout: 20_000, env: { ...process.env, TMPDIR: own } },
    );
    const [pid, ...folders] = stdout.trim().split(" ");
    const helper = Number(pid);
    expect(helper).toBeGreaterThan(0);
    expect(
      folders.filter((name) => name.startsWith(`patchwright-tmp-spawner-${helper}-`)),
    ).toHaveLength(1);
    // It ended on its own (no kill, well inside the timeout).
    expect(performance.now() - started).toBeLessThan(15_000);
    for (let i = 0; i < 50 && alive(helper); i++) await new Promise((wait) => setTimeout(wait, 20));
    expect(alive(helper)).toBe(false);
    // Nor its folder for the programs' output.
    expect(readdirSync(own).filter((name) => name.startsWith("patchwright-tmp-spawner-"))).toEqual(
      [],
    );
    rmSync(own, { recursive: true, force: true });
  }, 30_000);
});
