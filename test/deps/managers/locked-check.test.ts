import { describe, expect, it } from "vitest";
import {
  lockedMismatches,
  mismatchReason,
  retargetedFix,
} from "../../../src/deps/managers/locked-check.js";
import type { Update } from "../../../src/deps/update.js";

function update(name: string, from: string, to: string, manifest = "package.json"): Update {
  return {
    name,
    from,
    to,
    type: "minor",
    locations: [{ manifest, section: "dependencies", spec: `^${from}`, newSpec: `^${to}`, from }],
    links: {},
    newInstallScripts: [],
    passedOver: [],
  };
}

describe("lockedMismatches", () => {
  it("reads what npm, pnpm and yarn locked and names each update locked at another version", () => {
    const lib = update("lib", "1.0.0", "1.1.0", "packages/a/package.json");
    const ok = update("ok", "1.0.0", "1.0.1");
    const npm = JSON.stringify({
      lockfileVersion: 3,
      packages: {
        "node_modules/lib": { version: "1.2.0" },
        "node_modules/ok": { version: "1.0.1" },
      },
    });
    const pnpm = [
      "lockfileVersion: '9.0'",
      "importers:",
      "  .:",
      "    dependencies:",
      "      ok: {specifier: ^1.0.1, version: 1.0.1}",
      "  packages/a:",
      "    dependencies:",
      "      lib: {specifier: ^1.1.0, version: 1.2.0(peer@1.0.0)}",
      "",
    ].join("\n");
    const yarn1 = [
      '"lib@^1.1.0":',
      '  version "1.2.0"',
      "",
      "ok@^1.0.1:",
      '  version "1.0.1"',
      "",
    ].join("\n");
    for (const [path, text] of [
      ["package-lock.json", npm],
      ["pnpm-lock.yaml", pnpm],
      ["yarn.lock", yarn1],
    ] as const) {
      const found = lockedMismatches(path, text, [lib, ok]);
      expect(
        found.map((m) => [m.update.name, m.locked]),
        path,
      ).toEqual([["lib", "1.2.0"]]);
    }
    expect(mismatchReason({ update: lib, manifest: "", locked: "1.2.0" })).toContain(
      "locked lib 1.2.0, not 1.1.0 as planned",
    );
  });

  it("retells a security fix with the version locked when that one is fixed too, and refuses the rest", () => {
    const fix: Update = {
      ...update("lib", "1.0.0", "1.0.1"),
      type: "patch",
      advisories: [{ id: 1, title: "t", severity: "high", vulnerable_versions: "<1.0.1 || 1.3.0" }],
      unapprovedScripts: { tool: "npm", scripts: ["postinstall"], otherVersions: ["lib@1.0.0"] },
    };
    const retold = retargetedFix({ update: fix, manifest: "package.json", locked: "1.2.0" });
    expect(retold).toMatchObject({ name: "lib", from: "1.0.0", to: "1.2.0", type: "minor" });
    // Read from 1.0.1's packument: nothing it says holds for 1.2.0.
    expect(retold).not.toHaveProperty("unapprovedScripts");
    // Still affected, or not a security fix at all: refused.
    expect(
      retargetedFix({ update: fix, manifest: "package.json", locked: "1.3.0" }),
    ).toBeUndefined();
    expect(
      retargetedFix({ update: update("x", "1.0.0", "1.1.0"), manifest: "", locked: "1.2.0" }),
    ).toBeUndefined();
  });
});
