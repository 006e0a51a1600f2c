import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPrBump } from "../../../src/deps/pr/bump-diff.js";
import { git, makeRepo } from "../../helpers/temp-dir.js";

/**
 * Another bot's bump read from git: which packages moved, and what its
 * lockfile newly locks with an install script that the project's policy
 * (package.json's allowScripts, pnpm's allowBuilds) leaves unreviewed (the esbuild under a vite bump, pinned to
 * the version someone reviewed).
 */

const manifest = (vite: string) =>
  `${JSON.stringify(
    {
      name: "web",
      version: "1.0.0",
      devDependencies: { vite },
      allowScripts: { "esbuild@0.20.0": true },
    },
    null,
    2,
  )}\n`;

const lockfile = (vite: string, esbuild: string) =>
  `${JSON.stringify(
    {
      name: "web",
      lockfileVersion: 3,
      packages: {
        "": { name: "web", version: "1.0.0", devDependencies: { vite } },
        "node_modules/vite": { version: vite, dev: true, dependencies: { esbuild } },
        "node_modules/esbuild": { version: esbuild, dev: true, hasInstallScript: true },
      },
    },
    null,
    2,
  )}\n`;

describe("readPrBump", () => {
  it("says which install script the bump newly locks that allowScripts approves only at its old version", async () => {
    const dir = await makeRepo({
      "package.json": manifest("5.0.0"),
      "package-lock.json": lockfile("5.0.0", "0.20.0"),
    });
    const mergeBase = git(dir, "rev-parse", "HEAD").trim();
    await writeFile(join(dir, "package.json"), manifest("5.1.0"));
    await writeFile(join(dir, "package-lock.json"), lockfile("5.1.0", "0.21.0"));
    git(dir, "commit", "-qam", "Bump vite from 5.0.0 to 5.1.0");
    const bump = await readPrBump({ dir, env: { PATH: process.env.PATH ?? "" }, mergeBase });
    expect(bump.updates.map((u) => `${u.name} ${u.from}->${u.to}`)).toEqual(["vite 5.0.0->5.1.0"]);
    expect(bump.unreviewedScripts).toEqual([
      { name: "esbuild", version: "0.21.0", otherVersions: ["esbuild@0.20.0"], tool: "npm" },
    ]);
  });

  it("asks the registry, through what it is given, about what pnpm's lockfile newly locks", async () => {
    const pnpmManifest = (vite: string) =>
      `${JSON.stringify({ name: "web", version: "1.0.0", devDependencies: { vite } })}\n`;
    const pnpmLock = (vite: string, esbuild: string) =>
      [
        "lockfileVersion: '9.0'",
        "importers:",
        "  .:",
        "    devDependencies:",
        "      vite:",
        `        specifier: ${vite}`,
        `        version: ${vite}`,
        "packages:",
        `  vite@${vite}:`,
        "    resolution: {integrity: sha512-v}",
        `  esbuild@${esbuild}:`,
        "    resolution: {integrity: sha512-e}",
        "",
      ].join("\n");
    const dir = await makeRepo({
      "package.json": pnpmManifest("5.0.0"),
      "pnpm-workspace.yaml": "allowBuilds:\n  esbuild@0.20.0: true\n",
      "pnpm-lock.yaml": pnpmLock("5.0.0", "0.20.0"),
    });
    const mergeBase = git(dir, "rev-parse", "HEAD").trim();
    await writeFile(join(dir, "package.json"), pnpmManifest("5.1.0"));
    await writeFile(join(dir, "pnpm-lock.yaml"), pnpmLock("5.1.0", "0.21.0"));
    git(dir, "commit", "-qam", "Bump vite from 5.0.0 to 5.1.0");
    const asked: string[] = [];
    const bump = await readPrBump({
      dir,
      env: { PATH: process.env.PATH ?? "" },
      mergeBase,
      installScripts: async (name, version) => {
        asked.push(`${name}@${version}`);
        return name === "esbuild" ? ["postinstall"] : [];
      },
    });
    expect(bump.updates.map((u) => `${u.name} ${u.from}->${u.to}`)).toEqual(["vite 5.0.0->5.1.0"]);
    expect(bump.unreviewedScripts).toEqual([
      { name: "esbuild", version: "0.21.0", otherVersions: ["esbuild@0.20.0"], tool: "pnpm" },
    ]);
    // vite 5.0.0 too: had it a script, the base would have skipped it already.
    expect(asked.sort()).toEqual(["esbuild@0.21.0", "vite@5.0.0", "vite@5.1.0"]);
  });

  it("reads a catalog's bump as one move in pnpm-workspace.yaml, whatever uses it", async () => {
    const workspace = (range: string) =>
      `packages:\n  - packages/*\ncatalog:\n  fx-lib: ${range}\n`;
    const importer = (dir: string, version: string) => [
      `  ${dir}:`,
      "    dependencies:",
      "      fx-lib:",
      "        specifier: 'catalog:'",
      `        version: ${version}`,
    ];
    const lock = (version: string) =>
      [
        "lockfileVersion: '9.0'",
        "importers:",
        "  .: {}",
        ...importer("packages/a", version),
        ...importer("packages/b", version),
        "",
      ].join("\n");
    const member = (name: string) =>
      JSON.stringify({ name, dependencies: { "fx-lib": "catalog:" } });
    const dir = await makeRepo({
      "package.json": JSON.stringify({ name: "root", packageManager: "pnpm@10.34.8" }),
      "pnpm-workspace.yaml": workspace("^1.0.0"),
      "pnpm-lock.yaml": lock("1.0.0"),
      "packages/a/package.json": member("a"),
      "packages/b/package.json": member("b"),
    });
    const mergeBase = git(dir, "rev-parse", "HEAD").trim();
    await writeFile(join(dir, "pnpm-workspace.yaml"), workspace("^1.1.0"));
    await writeFile(join(dir, "pnpm-lock.yaml"), lock("1.1.0"));
    git(dir, "commit", "-qam", "Bump fx-lib from 1.0.0 to 1.1.0");
    const bump = await readPrBump({ dir, env: { PATH: process.env.PATH ?? "" }, mergeBase });
    expect(bump.updates.map((u) => [u.name, u.from, u.to, u.locations])).toEqual([
      [
        "fx-lib",
        "1.0.0",
        "1.1.0",
        [
          {
            manifest: "pnpm-workspace.yaml",
            section: "dependencies",
            spec: "^1.0.0",
            newSpec: "^1.1.0",
            from: "1.0.0",
            catalog: "default",
            usedBy: "packages/a/package.json",
          },
        ],
      ],
    ]);
  });
});
