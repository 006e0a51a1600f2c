import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseSandbox, SandboxUnavailableError } from "../../src/sandbox/select.js";
import { NO_HOST_TRUST } from "../../src/sandbox/trust/host-trust.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** A PATH whose bwrap is missing, or one that fails as it does without user namespaces. */
async function pathWith(bwrap: "missing" | "refusing"): Promise<string> {
  const dir = await makeTempDir();
  if (bwrap === "refusing") {
    const script = join(dir, "bwrap");
    await writeFile(
      script,
      '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    );
    await chmod(script, 0o755);
  }
  // The refusing one runs before the real bwrap; the missing one's folder has none.
  return bwrap === "missing" ? dir : `${dir}:/usr/bin:/bin`;
}

const base = {
  optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
  home: "/root",
  hidden: [],
  env: {},
  cwd: "/",
  hostTrust: NO_HOST_TRUST,
};

describe("choosing the sandbox", () => {
  it("uses bubblewrap where it starts", async () => {
    const choice = await chooseSandbox({
      ...base,
      mode: "service",
      optOut: false,
      path: process.env.PATH ?? "",
    });
    expect(choice.launcher.kind).toBe("bubblewrap");
    expect(choice.warning).toBeUndefined();
  });

  it("lets the CLI run unsandboxed with one warning line naming why", async () => {
    const choice = await chooseSandbox({
      ...base,
      mode: "cli",
      optOut: false,
      path: await pathWith("refusing"),
    });
    expect(choice.launcher.kind).toBe("none");
    expect(choice.warning?.split("\n")).toHaveLength(1);
    expect(choice.warning).toContain("No permissions to creating new namespace");
  });

  it("makes a service refuse to run repository code, naming the fix, unless opted out", async () => {
    const refused = await chooseSandbox({
      ...base,
      mode: "service",
      optOut: false,
      path: await pathWith("missing"),
    });
    expect(() =>
      refused.launcher.open({ workspace: "/x", readOnly: [], network: { kind: "off" } }),
    ).toThrow(SandboxUnavailableError);
    expect(refused.warning).toContain("apt-get install bubblewrap");
    expect(refused.warning).toContain("seccomp=unconfined");
    expect(refused.warning).toContain("PATCHWRIGHT_UNSANDBOXED=1");

    const optedOut = await chooseSandbox({
      ...base,
      mode: "service",
      optOut: true,
      path: await pathWith("missing"),
    });
    expect(optedOut.launcher.kind).toBe("none");
    expect(optedOut.warning).toContain("because PATCHWRIGHT_UNSANDBOXED=1 is set");
  });
});
