import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyBump, editManifest } from "../../../src/deps/managers/bump.js";
import { pnpmRelockCommands } from "../../../src/deps/managers/pnpm/index.js";
import { forgetLocked, pinnedRanges, relockTargets } from "../../../src/deps/managers/relock.js";
import { yarnBerryRelockCommand } from "../../../src/deps/managers/yarn/index.js";
import type { Update } from "../../../src/deps/update.js";

const update = (name: string, to: string, locations: Update["locations"]): Update => ({
  name,
  from: "1.0.0",
  to,
  type: "minor",
  locations,
  links: {},
  newInstallScripts: [],
  passedOver: [],
});

describe("lockfile-only updates per package manager", () => {
  it("re-resolves only the locations whose range stays, per manifest folder", () => {
    const updates = [
      update("a", "1.2.0", [
        {
          manifest: "package.json",
          section: "dependencies",
          spec: "1.x",
          newSpec: null,
          from: "1.0.0",
        },
        {
          manifest: "packages/w/package.json",
          section: "dependencies",
          spec: "1.x",
          newSpec: null,
          from: "1.0.0",
        },
        {
          manifest: "packages/v/package.json",
          section: "dependencies",
          spec: "1.0.0",
          newSpec: "1.2.0",
          from: "1.0.0",
        },
      ]),
      update("b", "2.0.0", [
        {
          manifest: "package.json",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^2.0.0",
          from: "1.0.0",
        },
      ]),
    ];
    const relock = relockTargets(updates);
    expect(relock).toEqual([
      {
        name: "a",
        version: "1.2.0",
        dirs: ["", "packages/w"],
        specs: ["1.x"],
        locations: [
          { manifest: "package.json", section: "dependencies", spec: "1.x" },
          { manifest: "packages/w/package.json", section: "dependencies", spec: "1.x" },
        ],
      },
    ]);
    // Each project gets its own versions: a name given to the whole workspace would be locked
    // there in every project, whatever its range.
    expect(
      pnpmRelockCommands(
        "pnpm",
        [
          ...relock,
          {
            name: "@s/c",
            version: "3.1.0",
            dirs: ["packages/my app"],
            specs: ["3"],
            locations: [],
          },
        ],
        " --config.minimum-release-age=10",
      ),
    ).toEqual([
      "pnpm update --filter '{.}' a@1.2.0 --no-save --lockfile-only --ignore-scripts --config.minimum-release-age=10",
      "pnpm update --filter '{./packages/w}' a@1.2.0 --no-save --lockfile-only --ignore-scripts --config.minimum-release-age=10",
      "pnpm update --filter '{./packages/my app}' @s/c@3.1.0 --no-save --lockfile-only --ignore-scripts --config.minimum-release-age=10",
    ]);
    expect(
      yarnBerryRelockCommand("yarn", [
        ...relock,
        { name: "a", version: "1.2.0", dirs: [""], specs: ["1.x"], locations: [] },
      ]),
    ).toBe("yarn up -R a --mode=update-lockfile");
    // bun locks an exact spec exactly: each kept range is pinned at the plan's version, where it is declared.
    expect(Object.fromEntries(pinnedRanges("bun.lock", relock))).toEqual({
      "package.json": [{ section: "dependencies", name: "a", spec: "1.2.0" }],
      "packages/w/package.json": [{ section: "dependencies", name: "a", spec: "1.2.0" }],
    });
    for (const lockfile of ["package-lock.json", "pnpm-lock.yaml", "yarn.lock"])
      expect(pinnedRanges(lockfile, relock).size).toBe(0);
  });

  it("relocks a catalog's kept range in its user's project, and pins it in the catalog for bun", () => {
    const [catalogued] = relockTargets([
      update("lib", "1.2.0", [
        {
          manifest: "package.json",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: null,
          from: "1.0.0",
          catalog: "default",
          usedBy: "packages/app/package.json",
        },
      ]),
    ]);
    expect(catalogued?.dirs).toEqual(["packages/app"]);
    const pins = pinnedRanges("bun.lock", catalogued ? [catalogued] : []);
    expect(Object.fromEntries(pins)).toEqual({
      "package.json": [{ section: "dependencies", name: "lib", spec: "1.2.0", catalog: "default" }],
    });
    // The bun pin lands in the catalog, not in a dependency section the root does not have.
    const manifest = JSON.stringify({ workspaces: { catalog: { lib: "^1.0.0" } } });
    expect(JSON.parse(editManifest(manifest, pins.get("package.json") ?? []))).toEqual({
      workspaces: { catalog: { lib: "1.2.0" } },
    });
  });

  it("drops the kept ranges' entries from yarn 1's lockfile and the package's from npm's, and leaves the others", () => {
    const relock = (name: string, ...specs: string[]) => ({
      name,
      version: "9.9.9",
      dirs: [""],
      specs,
      locations: specs.map((spec) => ({ manifest: "package.json", section: "dependencies", spec })),
    });
    const yarn1 = [
      "# yarn lockfile v1",
      "",
      "",
      '"@s/a@^1.0.0", "@s/a@~1.1.0":',
      '  version "1.1.0"',
      '  resolved "http://r/@s/a/-/a-1.1.0.tgz"',
      "  dependencies:",
      '    b "^2.0.0"',
      "",
      "b@^2.0.0:",
      '  version "2.0.0"',
      "",
      "ab@1.x:",
      '  version "1.0.0"',
      "",
      // Another range of a package, deeper in the tree: not the manifest's, so it stays.
      "ab@^2.0.0:",
      '  version "2.0.0"',
      "",
    ].join("\n");
    expect(forgetLocked("yarn.lock", yarn1, [relock("@s/a", "~1.1.0"), relock("ab", "1.x")])).toBe(
      [
        "# yarn lockfile v1",
        "",
        "",
        "b@^2.0.0:",
        '  version "2.0.0"',
        "",
        "ab@^2.0.0:",
        '  version "2.0.0"',
        "",
      ].join("\n"),
    );
    const npm = JSON.stringify({
      packages: {
        "": { dependencies: { a: "1.x" } },
        "node_modules/a": { version: "1.0.0" },
        "node_modules/b/node_modules/a": { version: "1.0.0" },
        "node_modules/ab": { version: "1.0.0" },
      },
    });
    expect(
      Object.keys(
        JSON.parse(forgetLocked("package-lock.json", npm, [relock("a", "1.x")]) ?? "{}").packages,
      ),
    ).toEqual(["", "node_modules/ab"]);
    // pnpm and yarn 4 are asked by command; their lockfiles are left to them.
    expect(
      forgetLocked("pnpm-lock.yaml", "lockfileVersion: '9.0'\n", [relock("a", "1.x")]),
    ).toBeUndefined();
    expect(
      forgetLocked("yarn.lock", '__metadata:\n  version: 8\n\n"a@npm:1.x":\n', [
        relock("a", "1.x"),
      ]),
    ).toBeUndefined();
  });
});

describe("bun's in-range updates", () => {
  const manifest = `${JSON.stringify({ dependencies: { a: "1.x", b: "^1.0.0" } }, null, 2)}\n`;
  const updates = [
    update("a", "1.2.0", [
      {
        manifest: "package.json",
        section: "dependencies",
        spec: "1.x",
        newSpec: null,
        from: "1.0.0",
      },
    ]),
    update("b", "1.3.0", [
      {
        manifest: "package.json",
        section: "dependencies",
        spec: "^1.0.0",
        newSpec: "^1.3.0",
        from: "1.0.0",
      },
    ]),
  ];

  /** Runs the bump on a bun project, with what package.json said at each lockfile step. */
  async function bump(passes: (step: number) => boolean) {
    const dir = await mkdtemp(join(tmpdir(), "pw-relock-bun-"));
    try {
      await writeFile(join(dir, "package.json"), manifest);
      await writeFile(join(dir, "bun.lock"), "{}\n");
      const seen: Array<Record<string, string>> = [];
      const outcome = await applyBump({
        dir,
        updates,
        lockfilePath: "bun.lock",
        before: new Date(0),
        lockfileCommand: (before) => `bun install --lockfile-only${before ? " --gate" : ""}`,
        run: async (command) => {
          const text = await readFile(join(dir, "package.json"), "utf8");
          seen.push(JSON.parse(text).dependencies);
          const passed = passes(seen.length);
          return {
            command,
            passed,
            exit: passed ? "0" : "1",
            timedOut: false,
            durationMs: 5,
            outputTail: "",
          };
        },
      });
      return { outcome, seen, after: await readFile(join(dir, "package.json"), "utf8") };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("locks with the kept range pinned at the plan's version, then again with the range back", async () => {
    const { outcome, seen, after } = await bump(() => true);
    expect(seen).toEqual([
      { a: "1.2.0", b: "^1.3.0" },
      { a: "1.x", b: "^1.3.0" },
    ]);
    expect(JSON.parse(after).dependencies).toEqual({ a: "1.x", b: "^1.3.0" });
    expect(outcome.lockfile?.passed).toBe(true);
    expect(outcome.lockfile?.durationMs).toBe(10);
  });

  it("puts the range back when the pinned step fails, and does not lock again", async () => {
    // The first try under the cutoff fails, the one without it too.
    const { outcome, seen, after } = await bump(() => false);
    expect(seen).toEqual([
      { a: "1.2.0", b: "^1.3.0" },
      { a: "1.2.0", b: "^1.3.0" },
    ]);
    expect(JSON.parse(after).dependencies).toEqual({ a: "1.x", b: "^1.3.0" });
    expect(outcome.lockfile?.passed).toBe(false);
  });

  it("reports the second step's failure", async () => {
    const { outcome, seen } = await bump((step) => step === 1);
    expect(seen).toHaveLength(2);
    expect(outcome.lockfile?.passed).toBe(false);
    expect(outcome.mismatched).toBeUndefined();
  });
});
