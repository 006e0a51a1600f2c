import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openWorksiteSandboxes } from "../../src/kernel/worksite-sandboxes.js";
import { networkPolicy } from "../../src/sandbox/network.js";
import type { Sandbox, SandboxLauncher, SandboxProfile } from "../../src/sandbox/sandbox.js";
import { SandboxUnavailableError } from "../../src/sandbox/select.js";
import { createBareRepo, gitTestEnv } from "../helpers/git-repos.js";

/**
 * The job's HOME is made before its sandboxes open; when one cannot open
 * (a host with no bubblewrap refuses every job), it is removed again, and a
 * sandbox already open is closed. The system temp dir is this test's own.
 */

let temp: string;
let workspace: string;
let env: Record<string, string>;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), "pw-worksite-sandboxes-"));
  env = gitTestEnv(join(temp, "home"));
  workspace = createBareRepo({ root: temp, env, files: { "a.txt": "a\n" } }).dir;
  await mkdir(join(temp, "system-tmp"));
  vi.stubEnv("TMPDIR", join(temp, "system-tmp"));
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(temp, { recursive: true, force: true });
});

/** A launcher whose `failAt`-th open throws what a host without bubblewrap throws. */
function launcher(failAt: number) {
  const profiles: SandboxProfile[] = [];
  const closed: SandboxProfile[] = [];
  const value: SandboxLauncher = {
    kind: "bubblewrap",
    open(profile) {
      if (profiles.length + 1 === failAt) {
        throw new SandboxUnavailableError("bubblewrap (bwrap) is not installed", "install it");
      }
      profiles.push(profile);
      const sandbox: Sandbox = {
        kind: "bubblewrap",
        network: profile.network,
        wrap: () => Promise.reject(new Error("no command runs in this test")),
        close: async () => {
          closed.push(profile);
        },
      };
      return sandbox;
    },
  };
  return { value, profiles, closed };
}

const networks = { network: networkPolicy("off"), setupNetwork: networkPolicy("on") };
const scratch = async () => (await readdir(join(temp, "system-tmp"))).sort();

describe("openWorksiteSandboxes", () => {
  it("gives both sandboxes one HOME, and removes it on close", async () => {
    const { value, profiles, closed } = launcher(0);
    const sandboxes = await openWorksiteSandboxes(value, workspace, env, networks);
    expect(profiles.map((p) => p.network)).toEqual([networks.setupNetwork, networks.network]);
    const home = profiles[0]?.home ?? "";
    expect(home).toMatch(/patchwright-tmp-job-home-/);
    expect(profiles[1]?.home).toBe(home);
    expect(await scratch()).toEqual([home.split("/").at(-1)]);
    await sandboxes.close();
    expect(closed).toHaveLength(2);
    expect(await scratch()).toEqual([]);
  });

  it.each([
    ["the first", 1, 0],
    ["the second", 2, 1],
  ])(
    "removes the HOME when %s sandbox cannot open, and closes what did",
    async (_which, failAt, opened) => {
      const { value, closed } = launcher(failAt);
      await expect(openWorksiteSandboxes(value, workspace, env, networks)).rejects.toThrow(
        SandboxUnavailableError,
      );
      expect(closed).toHaveLength(opened);
      expect(await scratch()).toEqual([]);
    },
  );
});
