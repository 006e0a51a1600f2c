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

  it("reads the overrides the bump changed, of a package it updates or one no manifest declares", async () => {
    // pnpm, in a folder (`directory: /web`): the range stays, the override and the lockfile move.
    const workspace = (a: string, z: string) =>
      `packages: []\noverrides:\n  fx-a: '${a}'\n  fx-c: 2.0.0\n  fx-z: ${z}\n`;
    const lock = (a: string) =>
      [
        "lockfileVersion: '9.0'",
        "importers:",
        "  .:",
        "    dependencies:",
        "      fx-a:",
        `        specifier: ${a}`,
        `        version: ${a}`,
        "",
      ].join("\n");
    const pnpm = await makeRepo({
      "web/package.json": JSON.stringify({
        name: "web",
        packageManager: "pnpm@10.34.8",
        dependencies: { "fx-a": "^1.0.0" },
      }),
      "web/pnpm-workspace.yaml": workspace("1.0.0", "3.0.0"),
      "web/pnpm-lock.yaml": lock("1.0.0"),
    });
    const pnpmBase = git(pnpm, "rev-parse", "HEAD").trim();
    // fx-z, which no manifest declares, moves only through its override: read all the same.
    await writeFile(join(pnpm, "web/pnpm-workspace.yaml"), workspace("1.1.0", "3.1.0"));
    await writeFile(join(pnpm, "web/pnpm-lock.yaml"), lock("1.1.0"));
    git(pnpm, "commit", "-qam", "Update dependency fx-a to v1.1.0");
    const env = { PATH: process.env.PATH ?? "" };
    const held = await readPrBump({ dir: pnpm, env, mergeBase: pnpmBase });
    expect(held.updates.map((u) => [u.name, u.from, u.to, u.locations[0]?.newSpec])).toEqual([
      ["fx-a", "1.0.0", "1.1.0", null],
    ]);
    expect(held.overrideMoves).toEqual([
      {
        name: "fx-a",
        file: "web/pnpm-workspace.yaml",
        field: "overrides",
        path: ["overrides", "fx-a"],
        key: "fx-a",
        from: "1.0.0",
        to: "1.1.0",
      },
      {
        name: "fx-z",
        file: "web/pnpm-workspace.yaml",
        field: "overrides",
        path: ["overrides", "fx-z"],
        key: "fx-z",
        from: "3.0.0",
        to: "3.1.0",
      },
    ]);

    // npm's nested form, whose "." holds the package itself; the direct range moves with it.
    const npmManifest = (b: string) =>
      JSON.stringify({
        name: "app",
        dependencies: { "fx-b": b },
        overrides: { "fx-b": { ".": b, "fx-dep": "1.0.0" } },
      });
    const npmLock = (b: string) =>
      JSON.stringify({
        name: "app",
        lockfileVersion: 3,
        packages: {
          "": { name: "app", dependencies: { "fx-b": b } },
          "node_modules/fx-b": { version: b },
        },
      });
    const npm = await makeRepo({
      "package.json": npmManifest("2.0.0"),
      "package-lock.json": npmLock("2.0.0"),
    });
    const npmBase = git(npm, "rev-parse", "HEAD").trim();
    await writeFile(join(npm, "package.json"), npmManifest("2.0.1"));
    await writeFile(join(npm, "package-lock.json"), npmLock("2.0.1"));
    git(npm, "commit", "-qam", "Bump fx-b from 2.0.0 to 2.0.1");
    const nested = await readPrBump({ dir: npm, env, mergeBase: npmBase });
    expect(nested.overrideMoves).toEqual([
      {
        name: "fx-b",
        file: "package.json",
        field: "overrides",
        path: ["overrides", "fx-b", "."],
        key: "fx-b",
        from: "2.0.0",
        to: "2.0.1",
      },
    ]);
  });
});
