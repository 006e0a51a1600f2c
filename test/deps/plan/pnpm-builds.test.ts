import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  lockedScriptsToReview,
  newlyLockedUnreviewed,
} from "../../../src/deps/plan/install-scripts.js";
import { lockedPnpmPackages, pnpmScriptPolicy } from "../../../src/deps/plan/pnpm-builds.js";
import { makeTempDir } from "../../helpers/temp-dir.js";

/** What the policy says of each name@version. */
function verdicts(
  settings: { manifest?: Record<string, unknown>; workspace?: unknown },
  packages: string[],
) {
  const policy = pnpmScriptPolicy({
    manifest: settings.manifest ?? {},
    workspace: settings.workspace,
  });
  if (!policy) return undefined;
  return Object.fromEntries(
    packages.map((id) => {
      const at = id.lastIndexOf("@");
      return [id, policy.approval(id.slice(0, at), id.slice(at + 1))];
    }),
  );
}

describe("pnpmScriptPolicy (pnpm 10's build settings)", () => {
  it("builds nothing unnamed from pnpm 10 on, with or without settings", () => {
    expect(verdicts({}, ["esbuild@0.25.0"])).toEqual({ "esbuild@0.25.0": "unreviewed" });
    expect(verdicts({ manifest: { packageManager: "pnpm@10.34.8" } }, ["esbuild@0.25.0"])).toEqual({
      "esbuild@0.25.0": "unreviewed",
    });
  });

  it("reads names, exact versions and unions of them, as onlyBuiltDependencies or allowBuilds", () => {
    const ids = ["esbuild@0.25.0", "esbuild@0.25.1", "nx@21.6.5", "nx@21.7.0", "sharp@0.33.0"];
    const expected = {
      "esbuild@0.25.0": "allowed",
      "esbuild@0.25.1": "unreviewed",
      "nx@21.6.5": "allowed",
      "nx@21.7.0": "unreviewed",
      "sharp@0.33.0": "allowed",
    };
    const list = ["esbuild@0.25.0", "nx@21.6.4 || 21.6.5", "sharp"];
    expect(verdicts({ workspace: { onlyBuiltDependencies: list } }, ids)).toEqual(expected);
    expect(verdicts({ manifest: { pnpm: { onlyBuiltDependencies: list } } }, ids)).toEqual(
      expected,
    );
    const map = Object.fromEntries(list.map((entry) => [entry, true]));
    expect(verdicts({ workspace: { allowBuilds: map } }, ids)).toEqual(expected);
  });

  it("keeps the pins a bump leaves behind", () => {
    const policy = pnpmScriptPolicy({
      manifest: {},
      workspace: {
        allowBuilds: { "esbuild@0.25.0": true, "nx@21.6.4 || 21.6.5": true, sharp: true },
      },
    });
    expect(policy?.pinsOf("esbuild")).toEqual(["esbuild@0.25.0"]);
    expect(policy?.pinsOf("nx")).toEqual(["nx@21.6.4 || 21.6.5"]);
    expect(policy?.pinsOf("sharp")).toEqual([]);
    expect(policy?.tool).toBe("pnpm");
  });

  it("denies what allowBuilds sets false or ignoredBuiltDependencies names", () => {
    expect(
      verdicts(
        {
          workspace: { allowBuilds: { "core-js": false }, ignoredBuiltDependencies: ["fsevents"] },
        },
        ["core-js@3.0.0", "fsevents@2.3.3", "esbuild@0.25.0"],
      ),
    ).toEqual({
      "core-js@3.0.0": "denied",
      "fsevents@2.3.3": "denied",
      "esbuild@0.25.0": "unreviewed",
    });
  });

  it("approves nothing with a range, which pnpm refuses", () => {
    expect(
      verdicts({ workspace: { onlyBuiltDependencies: ["esbuild@^0.25.0"] } }, ["esbuild@0.25.1"]),
    ).toEqual({ "esbuild@0.25.1": "unreviewed" });
  });

  it("lets package.json's pnpm field win over pnpm-workspace.yaml, as pnpm does", () => {
    expect(
      verdicts(
        {
          manifest: { pnpm: { onlyBuiltDependencies: ["sharp"] } },
          workspace: { onlyBuiltDependencies: ["esbuild"] },
        },
        ["sharp@1.0.0", "esbuild@1.0.0"],
      ),
    ).toEqual({ "sharp@1.0.0": "allowed", "esbuild@1.0.0": "unreviewed" });
  });

  it("builds everything else under neverBuiltDependencies alone", () => {
    expect(
      verdicts({ workspace: { neverBuiltDependencies: ["core-js"] } }, [
        "core-js@3.0.0",
        "x@1.0.0",
      ]),
    ).toEqual({ "core-js@3.0.0": "denied", "x@1.0.0": "allowed" });
  });

  it("has no policy when every build runs, or when the list is in a file it does not read", () => {
    expect(verdicts({ workspace: { dangerouslyAllowAllBuilds: true } }, [])).toBeUndefined();
    expect(verdicts({ workspace: { neverBuiltDependencies: [] } }, [])).toBeUndefined();
    expect(verdicts({ manifest: { packageManager: "pnpm@9.15.0" } }, [])).toBeUndefined();
    expect(
      verdicts({ workspace: { onlyBuiltDependenciesFile: "builds.json" } }, []),
    ).toBeUndefined();
    // pnpm 9 with a list has the gate too.
    expect(
      verdicts(
        { manifest: { packageManager: "pnpm@9.15.0", pnpm: { onlyBuiltDependencies: ["a"] } } },
        ["b@1.0.0"],
      ),
    ).toEqual({ "b@1.0.0": "unreviewed" });
  });
});

describe("pnpmScriptPolicy (pnpm 11 and later: allowBuilds alone)", () => {
  const pnpm11 = { packageManager: "pnpm@11.29.0" };

  it("reads allowBuilds only, in pnpm-workspace.yaml, a denial before an approval", () => {
    expect(
      verdicts(
        {
          manifest: { ...pnpm11, pnpm: { onlyBuiltDependencies: ["sharp"] } },
          workspace: {
            onlyBuiltDependencies: ["core-js"],
            allowBuilds: { esbuild: true, "esbuild@0.25.0": false, "nx@21.6.5": true },
          },
        },
        [
          "esbuild@0.25.0",
          "esbuild@0.25.1",
          "nx@21.6.5",
          "nx@21.7.0",
          "sharp@0.33.0",
          "core-js@3.0.0",
        ],
      ),
    ).toEqual({
      "esbuild@0.25.0": "denied",
      "esbuild@0.25.1": "allowed",
      "nx@21.6.5": "allowed",
      "nx@21.7.0": "unreviewed",
      "sharp@0.33.0": "unreviewed",
      "core-js@3.0.0": "unreviewed",
    });
  });

  it("builds nothing without allowBuilds, everything with dangerouslyAllowAllBuilds; pnpm 12 alike", () => {
    expect(verdicts({ manifest: pnpm11, workspace: {} }, ["x@1.0.0"])).toEqual({
      "x@1.0.0": "unreviewed",
    });
    expect(
      verdicts({ manifest: pnpm11, workspace: { dangerouslyAllowAllBuilds: true } }, []),
    ).toBeUndefined();
    const pnpm12 = pnpmScriptPolicy({
      manifest: { packageManager: "pnpm@12.24.0" },
      workspace: { neverBuiltDependencies: ["x"], allowBuilds: { "y@1.0.0": true } },
    });
    expect([pnpm12?.approval("x", "1.0.0"), pnpm12?.approval("y", "1.0.0")]).toEqual([
      "unreviewed",
      "allowed",
    ]);
    expect(pnpm12?.pinsOf("y")).toEqual(["y@1.0.0"]);
  });
});

describe("lockedPnpmPackages", () => {
  it("lists the registry packages of lockfile v9 and v6, without links, tarballs or peer suffixes", () => {
    const v9 = [
      "lockfileVersion: '9.0'",
      "",
      "importers:",
      "  .:",
      "    dependencies:",
      "      esbuild:",
      "        specifier: 0.25.0",
      "        version: 0.25.0",
      "",
      "packages:",
      "",
      "  '@esbuild/linux-x64@0.25.0':",
      "    resolution: {integrity: sha512-x}",
      "    cpu: [x64]",
      "",
      "  esbuild@0.25.0:",
      "    resolution: {integrity: sha512-y}",
      "    hasBin: true",
      "",
      "  local-thing@file:../local:",
      "    resolution: {directory: ../local, type: directory}",
      "",
      "  tgz@https://example.test/tgz-1.0.0.tgz:",
      "    resolution: {tarball: https://example.test/tgz-1.0.0.tgz}",
      "",
      "snapshots:",
      "",
      "  esbuild@0.25.0:",
      "    optionalDependencies:",
      "      '@esbuild/linux-x64': 0.25.0",
      "",
      "  react-dom@18.2.0(react@18.2.0): {}",
    ].join("\n");
    expect(lockedPnpmPackages(v9)).toEqual([
      { name: "@esbuild/linux-x64", version: "0.25.0" },
      { name: "esbuild", version: "0.25.0" },
    ]);
    const v6 = [
      "lockfileVersion: '6.0'",
      "packages:",
      "  /@swc/core@1.3.0:",
      "    resolution: {integrity: sha512-z}",
      "    requiresBuild: true",
      "  /react-dom@18.2.0(react@18.2.0):",
      "    resolution: {integrity: sha512-w}",
    ].join("\n");
    expect(lockedPnpmPackages(v6)).toEqual([
      { name: "@swc/core", version: "1.3.0" },
      { name: "react-dom", version: "18.2.0" },
    ]);
  });
});

describe("what a pnpm bump newly locks", () => {
  const lockfile = (entries: string[]) =>
    [
      "lockfileVersion: '9.0'",
      "packages:",
      ...entries.map((e) => `  ${e}:\n    resolution: {}`),
    ].join("\n");

  it("asks the registry only about unapproved new versions and the base's versions of their names", async () => {
    const dir = await makeTempDir("pw-pnpm-builds-");
    await mkdir(join(dir, "web"), { recursive: true });
    await writeFile(join(dir, "web/package.json"), JSON.stringify({ name: "web" }));
    await writeFile(
      join(dir, "web/pnpm-workspace.yaml"),
      "packages: []\nallowBuilds:\n  esbuild@0.25.0: true\n  sharp: true\n",
    );
    await writeFile(
      join(dir, "web/pnpm-lock.yaml"),
      lockfile([
        "esbuild@0.25.1",
        "sharp@0.34.0",
        "fx-native@2.0.0",
        "fx-plain@1.0.0",
        "fx-old@2.0.0",
      ]),
    );
    const asked: string[] = [];
    const scripts: Record<string, string[]> = {
      "esbuild@0.25.1": ["postinstall"],
      "fx-native@2.0.0": ["install"],
      "fx-old@1.0.0": ["install"],
      "fx-old@2.0.0": ["install"],
    };
    const found = await lockedScriptsToReview({
      dir: dir,
      lockfilePath: "web/pnpm-lock.yaml",
      before: Buffer.from(lockfile(["esbuild@0.25.0", "sharp@0.33.0", "fx-old@1.0.0"])),
      installScripts: async (name, version) => {
        asked.push(`${name}@${version}`);
        return scripts[`${name}@${version}`] ?? [];
      },
    });
    expect(found).toEqual([
      { name: "esbuild", version: "0.25.1", otherVersions: ["esbuild@0.25.0"], tool: "pnpm" },
      { name: "fx-native", version: "2.0.0", otherVersions: [], tool: "pnpm" },
    ]);
    // sharp is approved by name, esbuild 0.25.0 by its pin: never asked. fx-old's base version was skipped already.
    expect(asked.sort()).toEqual([
      "esbuild@0.25.1",
      "fx-native@2.0.0",
      "fx-old@1.0.0",
      "fx-old@2.0.0",
      "fx-plain@1.0.0",
    ]);
    // Without a way to ask, pnpm's lockfile says nothing of scripts.
    expect(
      await lockedScriptsToReview({
        dir: dir,
        lockfilePath: "web/pnpm-lock.yaml",
        before: Buffer.from(lockfile(["esbuild@0.25.0"])),
      }),
    ).toEqual([]);
  });

  it("says nothing of a name the base locked unreviewed, only of what the bump newly skips", () => {
    const policy = pnpmScriptPolicy({ manifest: {}, workspace: {} });
    expect(
      newlyLockedUnreviewed(
        policy,
        [{ name: "esbuild", version: "0.25.0" }],
        [
          { name: "esbuild", version: "0.25.1" },
          { name: "fx-native", version: "2.0.0" },
        ],
      ),
    ).toEqual([{ name: "fx-native", version: "2.0.0", otherVersions: [], tool: "pnpm" }]);
  });
});
