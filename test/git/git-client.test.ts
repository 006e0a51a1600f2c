import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitCommandError, runGit } from "../../src/git/git-client.js";
import { git, gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";
import { makeThrowawayCa } from "../helpers/tls-proxy.js";

let tmp: TempDir;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  git(tmp.path, ["init", "--quiet", "--initial-branch=main"], env);
});

afterEach(() => tmp.remove());

describe("runGit", () => {
  it("returns stdout and runs in the given directory", async () => {
    expect(await runGit(tmp.path, ["rev-parse", "--show-toplevel"], { env })).toBe(
      `${git(tmp.path, ["rev-parse", "--show-toplevel"], env)}\n`,
    );
  });

  it("feeds input and applies per-client config through the environment", async () => {
    const sha = await runGit(tmp.path, ["hash-object", "-w", "--stdin"], { env, input: "hi\n" });
    expect(git(tmp.path, ["cat-file", "-p", sha.trim()], env)).toBe("hi");
    const value = await runGit(tmp.path, ["config", "--get", "patchwright.probe"], {
      env,
      config: [["patchwright.probe", "on"]],
    });
    expect(value.trim()).toBe("on");
    // Nothing was written to the repository's config.
    expect(() => git(tmp.path, ["config", "--local", "--get", "patchwright.probe"], env)).toThrow();
  });

  it("starts no housekeeping of its own after a commit (a client's config may ask for it)", async () => {
    // What git started, from its own trace of the command.
    const started = async (config: Array<[string, string]>) => {
      const trace = join(tmp.path, `trace-${config.length}.json`);
      await runGit(tmp.path, ["commit", "--allow-empty", "--quiet", "-m", "empty"], {
        env: { ...env, GIT_TRACE2_EVENT: trace },
        config,
        extraEnv: {
          ...{ GIT_AUTHOR_NAME: "A", GIT_AUTHOR_EMAIL: "a@example.com" },
          ...{ GIT_COMMITTER_NAME: "A", GIT_COMMITTER_EMAIL: "a@example.com" },
        },
      });
      return readFileSync(trace, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; argv?: string[] })
        .filter((event) => event.event === "child_start")
        .map((event) => event.argv?.join(" "));
    };
    expect(await started([])).toEqual([]);
    expect(await started([["maintenance.auto", "true"]])).toEqual([
      "git maintenance run --auto --quiet",
    ]);
  });

  it("says how to give it a CA when a server's certificate cannot be verified, and takes GIT_SSL_CAINFO", async () => {
    const ca = await makeThrowawayCa(tmp.path);
    const server = createHttpsServer(await ca.issue(["127.0.0.1"]), (_req, res) =>
      res.writeHead(404).end(),
    );
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/o/r.git`;
    // The user's git trusts the CA through their git config, which patchwright's git never reads.
    writeFileSync(join(tmp.path, "home", ".gitconfig"), `[http]\n\tsslCAInfo = ${ca.certPath}\n`);
    try {
      const untrusted = await runGit(tmp.path, ["ls-remote", url], { env }).catch((e) => e);
      expect(untrusted).toBeInstanceOf(GitCommandError);
      expect(untrusted.message).toMatch(/certificate/);
      expect(untrusted.message).toMatch(/reads no git config file.*GIT_SSL_CAINFO/);
      // With the CA named in the environment, TLS passes: the server's 404 is what fails.
      const trusted = await runGit(tmp.path, ["ls-remote", url], {
        env: { ...env, GIT_SSL_CAINFO: ca.certPath },
      }).catch((e) => e);
      expect(trusted).toBeInstanceOf(GitCommandError);
      expect(trusted.message).not.toMatch(/certificate|GIT_SSL_CAINFO/);
      expect(trusted.message).toMatch(/not found|404/i);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  it("rejects with a GitCommandError carrying the exit code and stderr", async () => {
    const error = await runGit(tmp.path, ["show", "nope"], { env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as GitCommandError).exitCode).toBe(128);
    expect((error as GitCommandError).stderr).toContain("nope");
  });

  it("stops the command when the signal aborts, and does not start one after", async () => {
    const controller = new AbortController();
    const pending = runGit(tmp.path, ["gc", "--quiet"], { env, signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow(/aborted: cancelled/);
    await expect(
      runGit(tmp.path, ["rev-parse", "--git-dir"], { env, signal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });

  it("stops the programs git started too, before it rejects", async () => {
    // An alias runs a shell under git, as gc runs repack and fetch index-pack.
    const pidFile = join(tmp.path, "helper.pid");
    const controller = new AbortController();
    const pending = runGit(tmp.path, ["hold"], {
      env,
      signal: controller.signal,
      config: [["alias.hold", `!sleep 60 & echo $! > '${pidFile}'; wait`]],
    });
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    const helper = Number(readFileSync(pidFile, "utf8"));
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow(/aborted: cancelled/);
    // Its pipes closed as it exited, before the rejection; the kernel marks
    // it dead a moment after closing them (seen under load). A helper that
    // was not stopped would sleep on for a minute.
    await waitFor(() => !running(helper));
  });
});

async function waitFor(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ready()).toBe(true);
}

/** Alive and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
