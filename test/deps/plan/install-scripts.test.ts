import { describe, expect, it } from "vitest";
import { scriptedPackages } from "../../../src/deps/managers/npm/lockfile.js";
import {
  installScriptsOf,
  newInstallScripts,
  newlyLockedUnreviewed,
  npmScriptPolicy,
  scriptApproval,
  unapprovedScripts,
} from "../../../src/deps/plan/install-scripts.js";
import type { Packument } from "../../../src/deps/registry/registry.js";
import type { ScriptPolicy } from "../../../src/deps/update.js";

/** npm's policy from an `allowScripts` object. */
function npm(allowScripts: Record<string, unknown>): ScriptPolicy {
  const policy = npmScriptPolicy(allowScripts);
  if (!policy) throw new Error("an object is a policy");
  return policy;
}

function packument(versions: Record<string, Record<string, unknown>>): Packument {
  return {
    name: "esbuild",
    "dist-tags": {},
    time: {},
    versions: Object.fromEntries(
      Object.entries(versions).map(([version, fields]) => [version, { version, ...fields }]),
    ),
  };
}

describe("scriptApproval (npm's allowScripts rules)", () => {
  it.each<[Record<string, unknown>, string, string]>([
    [{ esbuild: true }, "allowed", "a bare name approves every version"],
    [{ "esbuild@*": true }, "allowed", "name@* is the bare name"],
    [{ "esbuild@0.26.0": true }, "allowed", "the exact version"],
    [{ "esbuild@0.25.0": true }, "unreviewed", "a pin on the version before"],
    [{ "esbuild@0.25.0 || 0.26.0": true }, "allowed", "exact versions joined by ||"],
    [{ "esbuild@^0.26.0": true }, "unreviewed", "a range: npm refuses it"],
    [{ "esbuild@>=0.1.0": true }, "unreviewed", "a range: npm refuses it"],
    [{ "esbuild@latest": true }, "unreviewed", "a tag: npm refuses it"],
    [{ esbuild: false }, "denied", "a denial"],
    [{ esbuild: true, "esbuild@0.26.0": false }, "denied", "a denial wins over an approval"],
    [{ esbuilds: true, "esbuild-wasm": true }, "unreviewed", "other packages"],
    [{ "esbuild@npm:esbuild@0.26.0": true }, "unreviewed", "an alias key matches nothing"],
    [{ "file:../esbuild": true }, "unreviewed", "a path key is no registry name"],
    [{ esbuild: "yes" }, "unreviewed", "values other than true and false count for nothing"],
  ])("%j: %s (%s)", (policy, expected, _why) => {
    expect(scriptApproval(policy, "esbuild", "0.26.0")).toBe(expected);
  });

  it("reads scoped names", () => {
    expect(scriptApproval({ "@swc/core@1.3.0": true }, "@swc/core", "1.3.0")).toBe("allowed");
    expect(scriptApproval({ "@swc/core@1.3.0": true }, "@swc/core", "1.4.0")).toBe("unreviewed");
    expect(scriptApproval({ "@swc/core": false }, "@swc/core", "1.4.0")).toBe("denied");
    expect(scriptApproval({ "@swc": true }, "@swc/core", "1.4.0")).toBe("unreviewed");
  });

  it("treats a field that is no object as no approval", () => {
    expect(scriptApproval(undefined, "esbuild", "0.26.0")).toBe("unreviewed");
    expect(scriptApproval(["esbuild"], "esbuild", "0.26.0")).toBe("unreviewed");
  });
});

describe("unapprovedScripts", () => {
  const doc = packument({
    "0.25.0": { scripts: { postinstall: "node install.js" } },
    "0.26.0": { scripts: { postinstall: "node install.js", preinstall: "node pre.js" } },
    "0.27.0": {},
    "0.28.0": { hasInstallScript: true },
  });
  const bump = (to: string, extra: { package?: string; name?: string } = {}) => ({
    name: "esbuild",
    to,
    ...extra,
  });

  it("names the scripts and the pin a bump leaves behind", () => {
    expect(unapprovedScripts(npm({ "esbuild@0.25.0": true }), doc, bump("0.26.0"))).toEqual({
      tool: "npm",
      scripts: ["preinstall", "postinstall"],
      otherVersions: ["esbuild@0.25.0"],
    });
  });

  it("says nothing when the field approves or denies the version, or is absent", () => {
    expect(unapprovedScripts(npm({ esbuild: true }), doc, bump("0.26.0"))).toBeUndefined();
    expect(unapprovedScripts(npm({ esbuild: false }), doc, bump("0.26.0"))).toBeUndefined();
    expect(unapprovedScripts(undefined, doc, bump("0.26.0"))).toBeUndefined();
  });

  it("says nothing when the version it replaces had scripts left unreviewed too", () => {
    const from = (version: string) => ({ ...bump("0.26.0"), from: version });
    // 0.25.0 ran its postinstall by its pin; 0.26.0 is not approved.
    expect(
      unapprovedScripts(npm({ "esbuild@0.25.0": true }), doc, from("0.25.0"))?.scripts,
    ).toEqual(["preinstall", "postinstall"]);
    // 0.25.0 was skipped already.
    expect(unapprovedScripts(npm({ sharp: true }), doc, from("0.25.0"))).toBeUndefined();
    // 0.27.0 had no script to skip: 0.26.0's are new to the project.
    expect(unapprovedScripts(npm({ sharp: true }), doc, from("0.27.0"))?.scripts).toEqual([
      "preinstall",
      "postinstall",
    ]);
  });

  it("says nothing of a version without install scripts", () => {
    expect(unapprovedScripts(npm({ "esbuild@0.25.0": true }), doc, bump("0.27.0"))).toBeUndefined();
  });

  it("counts the registry's hasInstallScript (a binding.gyp) as an install script", () => {
    expect(installScriptsOf(doc, "0.28.0")).toEqual(["install"]);
    expect(unapprovedScripts(npm({}), doc, bump("0.28.0"))).toEqual({
      tool: "npm",
      scripts: ["install"],
      otherVersions: [],
    });
  });

  it("matches an alias by the package it installs, as npm does", () => {
    const aliased = bump("0.26.0", { name: "my-esbuild", package: "esbuild" });
    expect(unapprovedScripts(npm({ "my-esbuild": true }), doc, aliased)?.scripts).toEqual([
      "preinstall",
      "postinstall",
    ]);
    expect(unapprovedScripts(npm({ esbuild: true }), doc, aliased)).toBeUndefined();
  });

  it("newInstallScripts lists only what the new version adds", () => {
    expect(newInstallScripts(doc, "0.25.0", "0.26.0")).toEqual(["preinstall"]);
    expect(newInstallScripts(doc, "0.27.0", "0.28.0")).toEqual(["install"]);
    expect(newInstallScripts(doc, "0.26.0", "0.27.0")).toEqual([]);
  });
});

describe("what a bump newly locks (npm's lockfile)", () => {
  const lock = (packages: Record<string, Record<string, unknown>>) =>
    JSON.stringify({ lockfileVersion: 3, packages: { "": { name: "app" }, ...packages } });

  it("lists the packages npm would run install scripts for, by registry name and version", () => {
    const text = lock({
      "node_modules/esbuild": { version: "0.25.0", hasInstallScript: true },
      "node_modules/vite/node_modules/esbuild": { version: "0.21.5", hasInstallScript: true },
      "node_modules/a/node_modules/esbuild": { version: "0.21.5", hasInstallScript: true },
      "node_modules/@swc/core": { version: "1.3.0", hasInstallScript: true },
      // An alias is named by the package it installs.
      "node_modules/my-sharp": { name: "sharp", version: "0.33.0", hasInstallScript: true },
      "node_modules/plain": { version: "1.0.0" },
      // npm runs no bundled package's scripts; a workspace is the project's own.
      "node_modules/x/node_modules/bundled": {
        version: "1.0.0",
        hasInstallScript: true,
        inBundle: true,
      },
      "node_modules/member": { resolved: "packages/member", link: true },
      "packages/member": { version: "1.0.0", hasInstallScript: true },
    });
    expect(scriptedPackages(text).map((p) => `${p.name}@${p.version}`)).toEqual([
      "esbuild@0.25.0",
      "esbuild@0.21.5",
      "@swc/core@1.3.0",
      "sharp@0.33.0",
    ]);
  });

  it("keeps only what is new and left unreviewed, with the pins it leaves behind", () => {
    const before = [
      { name: "esbuild", version: "0.21.5" },
      { name: "sharp", version: "0.33.0" },
    ];
    const after = [
      { name: "esbuild", version: "0.25.0" },
      { name: "sharp", version: "0.33.0" },
      { name: "@swc/core", version: "1.3.0" },
      { name: "fsevents", version: "2.3.3" },
    ];
    const policy = { "esbuild@0.21.5": true, "sharp@0.32.0": true, fsevents: false };
    expect(newlyLockedUnreviewed(npm(policy), before, after)).toEqual([
      { name: "@swc/core", version: "1.3.0", otherVersions: [], tool: "npm" },
      { name: "esbuild", version: "0.25.0", otherVersions: ["esbuild@0.21.5"], tool: "npm" },
    ]);
    // Without the field the project has not opted in: nothing to say.
    expect(newlyLockedUnreviewed(npmScriptPolicy(undefined), before, after)).toEqual([]);
  });

  it("leaves out a package whose base version was unreviewed too: it was skipped before the bump", () => {
    const before = [{ name: "esbuild", version: "0.21.5" }];
    const after = [
      { name: "esbuild", version: "0.25.0" },
      { name: "sharp", version: "0.33.0" },
    ];
    expect(newlyLockedUnreviewed(npm({ "esbuild@0.20.0": true }), before, after)).toEqual([
      { name: "sharp", version: "0.33.0", otherVersions: [], tool: "npm" },
    ]);
  });
});
