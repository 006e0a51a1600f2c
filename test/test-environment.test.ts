import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readNpmSettings } from "../src/sandbox/trust/npm-settings.js";
import { gitTestEnv } from "./helpers/git-repos.js";
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
