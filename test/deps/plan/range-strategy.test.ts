import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupTitle, groupUpdates } from "../../../src/deps/plan/groups.js";
import { readProjectNodes } from "../../../src/deps/plan/node/project-node.js";
import { checkPeers } from "../../../src/deps/plan/peers.js";
import { writeRange } from "../../../src/deps/plan/range-strategy.js";
import { readReleaseAge } from "../../../src/deps/plan/release-age.js";
import type { Packument } from "../../../src/deps/registry/registry.js";
import type { Update } from "../../../src/deps/update.js";

const app = { strategy: "auto", section: "dependencies", hasLockfile: true } as const;
const library = { ...app, hasLockfile: false } as const;

function update(name: string, from: string, to: string, type: Update["type"]): Update {
  return {
    name,
    from,
    to,
    type,
    locations: [
      {
        manifest: "package.json",
        section: "dependencies",
        spec: `^${from}`,
        newSpec: `^${to}`,
        from,
      },
    ],
    links: {},
    newInstallScripts: [],
    passedOver: [],
  };
}

describe("writeRange", () => {
  it("auto bumps an application's ranges and widens a library's, leaving in-range updates to npm", () => {
    expect(writeRange("^2.2.1", "2.2.2", app)).toEqual({ kind: "write", spec: "^2.2.2" });
    expect(writeRange("^2.2.1", "2.2.2", library)).toEqual({
      kind: "leave",
      reason:
        '2.2.2 is inside "^2.2.1": without a lockfile an install already takes it (range strategy widen)',
    });
    expect(writeRange("^2.2.1", "3.0.0", library)).toEqual({
      kind: "write",
      spec: "^2.2.1 || ^3.0.0",
    });
    // Peer ranges widen even in an application: consumers on the old major keep working.
    expect(writeRange("^17.0.0", "18.2.0", { ...app, section: "peerDependencies" })).toEqual({
      kind: "write",
      spec: "^17.0.0 || ^18.2.0",
    });
  });

  it("follows bump, replace, pin and widen as Renovate names them", () => {
    const explicit = (strategy: "bump" | "replace" | "pin" | "widen") => ({ ...app, strategy });
    expect(writeRange("~1.2.0", "1.2.5", explicit("bump"))).toEqual({
      kind: "write",
      spec: "~1.2.5",
    });
    // replace touches only a range the new version falls out of; the lockfile moves otherwise.
    expect(writeRange("~1.2.0", "1.2.5", explicit("replace"))).toEqual({
      kind: "write",
      spec: null,
    });
    expect(writeRange("~1.2.0", "1.3.0", explicit("replace"))).toEqual({
      kind: "write",
      spec: "~1.3.0",
    });
    expect(writeRange("^1.2.0", "1.3.0", explicit("pin"))).toEqual({
      kind: "write",
      spec: "1.3.0",
    });
    expect(writeRange("1.2.0", "2.0.0", explicit("widen"))).toEqual({
      kind: "write",
      spec: "2.0.0",
    });
    expect(writeRange(">=1 <2", "2.1.0", explicit("bump"))).toMatchObject({ kind: "refuse" });
    // A range written to a major or a minor keeps its precision, as Renovate writes it.
    const partial = (spec: string, to: string, strategy: "bump" | "replace") =>
      writeRange(spec, to, explicit(strategy));
    expect(partial("^4", "6.3.1", "bump")).toEqual({ kind: "write", spec: "^6" });
    expect(partial("~4.5", "6.3.1", "bump")).toEqual({ kind: "write", spec: "~6.3" });
    expect(partial("^0.19", "0.21.3", "bump")).toEqual({ kind: "write", spec: "^0.21" });
    expect(partial("4.x", "6.3.1", "bump")).toEqual({ kind: "write", spec: "6.x" });
    expect(partial("4.5.*", "6.3.1", "bump")).toEqual({ kind: "write", spec: "6.3.*" });
    expect(partial("4", "6.3.1", "replace")).toEqual({ kind: "write", spec: "6" });
    expect(partial("~4.5", "6.3.1", "replace")).toEqual({ kind: "write", spec: "~6.3" });
    expect(partial("^4.5", "4.7.0", "bump")).toEqual({ kind: "write", spec: "^4.7" });
    // Inside the range at its precision: the lockfile moves.
    expect(partial("^4", "4.7.0", "bump")).toEqual({ kind: "write", spec: null });
    expect(partial("4.x", "4.7.0", "replace")).toEqual({ kind: "write", spec: null });
    // No partial range allows a prerelease.
    expect(partial("^4", "5.0.0-beta.1", "bump")).toMatchObject({ kind: "refuse" });
    expect(writeRange(">=1 <2", "2.1.0", explicit("widen"))).toEqual({
      kind: "write",
      spec: ">=1 <2 || ^2.1.0",
    });
  });
});

describe("groupUpdates", () => {
  it("names the default group after the update types it can hold, and keeps lockfile-only updates apart", () => {
    const inRange = update("b", "1.0.0", "1.0.3", "patch");
    inRange.locations = [
      {
        manifest: "package.json",
        section: "dependencies",
        spec: ">=1",
        newSpec: null,
        from: "1.0.0",
      },
    ];
    const groups = groupUpdates([update("a", "1.0.0", "1.0.1", "patch"), inRange], {
      groups: [],
      updateTypes: ["patch"],
    });
    expect(groups.map((g) => [g.slug, g.name, g.updates.map((u) => u.name)])).toEqual([
      ["patch", "patch", ["a"]],
      ["lockfile-only", "lockfile only", ["b"]],
    ]);
    expect(
      groupUpdates([update("a", "1.0.0", "1.1.0", "minor")], {
        groups: [],
        updateTypes: ["minor"],
      })[0]?.name,
    ).toBe("minor");
  });

  it("titles a security fix with its severity", () => {
    const fix = {
      ...update("x", "1.0.0", "1.0.2", "patch"),
      advisories: [{ id: 1001, title: "ReDoS", severity: "high", vulnerable_versions: "<1.0.2" }],
    };
    expect(
      groupTitle({
        slug: "security-x",
        name: "security fix for x",
        single: true,
        security: true,
        updates: [fix],
      }),
    ).toBe("Bump x from 1.0.0 to 1.0.2 (security, high)");
  });
});

describe("checkPeers", () => {
  const doc = (
    name: string,
    versions: Record<string, Record<string, string> | undefined>,
  ): Packument => ({
    name,
    "dist-tags": {},
    versions: Object.fromEntries(
      Object.entries(versions).map(([v, peers]) => [
        v,
        { version: v, ...(peers ? { peerDependencies: peers } : {}) },
      ]),
    ),
    time: {},
  });
  const packuments = new Map([
    [
      "ts-lint",
      doc("ts-lint", {
        "8.0.0": { ts: "<6.1.0" },
        "8.5.0": { ts: "<7.1.0" },
        "8.6.0": { ts: "<6.1.0" },
      }),
    ],
    ["ts", doc("ts", { "5.9.0": undefined, "7.0.0": undefined })],
    ["plugin", doc("plugin", { "1.0.0": { host: "^1" }, "2.0.0": { host: "^2" } })],
    ["host", doc("host", { "1.0.0": undefined, "2.0.0": undefined })],
  ]);

  it("lets a bump through a peer range the installed versions already break, naming the project's tool otherwise", () => {
    // host 2.0.0 is installed beside plugin 1.0.0, which asks for host ^1: moving host within 2.x breaks nothing new.
    const installed = new Map([
      ["plugin", "1.0.0"],
      ["host", "2.0.0"],
    ]);
    const withPatch = new Map([
      ...packuments,
      ["host", doc("host", { "1.0.0": undefined, "2.0.0": undefined, "2.0.1": undefined })],
    ]);
    const inside = checkPeers([update("host", "2.0.0", "2.0.1", "patch")], installed, withPatch);
    expect([inside.updates.length, inside.skipped]).toEqual([1, []]);
    const broken = checkPeers(
      [update("ts", "5.9.0", "7.0.0", "major")],
      new Map([
        ["ts-lint", "8.0.0"],
        ["ts", "5.9.0"],
      ]),
      packuments,
      { manager: "pnpm" },
    );
    expect(broken.skipped[0]?.reason).toBe(
      '5.9.0 -> 7.0.0 is outside the peer range "<6.1.0" that ts-lint 8.0.0 declares (pnpm would install it and report an unmet peer)',
    );
  });

  it("does not tie a peer's bump to a declarer whose range the installed versions already break", () => {
    // headlessui: @testing-library/react 15 (react ^18) beside a playground's react 19.2;
    // react's minor broke nothing new, so it is no reason to wait for the testing library's major.
    const both = checkPeers(
      [update("plugin", "1.0.0", "2.0.0", "major"), update("host", "2.0.0", "2.0.1", "patch")],
      new Map([
        ["plugin", "1.0.0"],
        ["host", "2.0.0"],
      ]),
      new Map([
        ["plugin", doc("plugin", { "1.0.0": { host: "^1" }, "2.0.0": { host: "^1 || ^2" } })],
        ["host", doc("host", { "1.0.0": undefined, "2.0.0": undefined, "2.0.1": undefined })],
      ]),
    );
    expect(both.updates.map((u) => u.name)).toEqual(["plugin", "host"]);
    expect(both.links).toEqual([]);
  });

  it("ties two bumps only where they meet: a package.json both move, or the root's", () => {
    // headlessui: @testing-library/react 15 -> 16 in packages/react (react 18 there),
    // react 19.2 -> 19.3 in a playground that has no testing library.
    const inside = (u: Update, manifest: string): Update => ({
      ...u,
      locations: u.locations.map((l) => ({ ...l, manifest })),
    });
    const plan = (hostIn: string) =>
      checkPeers(
        [
          inside(update("plugin", "1.0.0", "2.0.0", "major"), "packages/a/package.json"),
          inside(update("host", "1.0.0", "2.0.0", "major"), hostIn),
        ],
        new Map([
          ["plugin", "1.0.0"],
          ["host", "1.0.0"],
        ]),
        new Map([
          ["plugin", doc("plugin", { "1.0.0": { host: "^1" }, "2.0.0": { host: "^1 || ^2" } })],
          ["host", doc("host", { "1.0.0": undefined, "2.0.0": undefined })],
        ]),
      ).links;
    expect(plan("playgrounds/b/package.json")).toEqual([]);
    expect(plan("packages/a/package.json")).toEqual([["host", "plugin"]]);
    expect(plan("package.json")).toEqual([["host", "plugin"]]);
  });

  it("leaves out a bump that breaks an installed package's peer range, with the range", () => {
    const installed = new Map([
      ["ts-lint", "8.0.0"],
      ["ts", "5.9.0"],
    ]);
    const result = checkPeers([update("ts", "5.9.0", "7.0.0", "major")], installed, packuments);
    expect(result.updates).toEqual([]);
    expect(result.skipped).toEqual([
      {
        name: "ts",
        manifest: "package.json",
        reason:
          '5.9.0 -> 7.0.0 is outside the peer range "<6.1.0" that ts-lint 8.0.0 declares (npm would override it with a warning)',
      },
    ]);
  });

  it("holds a bump to a peer range that a package the lockfile installs (not named, optional) falls outside", () => {
    // lerna: @nx/eslint 23.1.3 asks for @nx/jest "23.1.3" (an optional peer), and npm's lockfile
    // has @nx/jest 23.1.0 under another package: npm refuses the install (ERESOLVE).
    const nx = new Map([
      [
        "@nx/eslint",
        doc("@nx/eslint", {
          "23.1.0": { "@nx/jest": "23.1.0" },
          "23.1.3": { "@nx/jest": "23.1.3" },
        }),
      ],
    ]);
    const bump = [update("@nx/eslint", "23.1.0", "23.1.3", "patch")];
    const direct = new Map([["@nx/eslint", "23.1.0"]]);
    const transitive = new Map([["@nx/jest", "23.1.0"]]);
    const held = checkPeers(bump, direct, nx, { transitive });
    expect(held.skipped.map((s) => s.reason)).toEqual([
      '23.1.0 -> 23.1.3 needs peer @nx/jest "23.1.3", and @nx/jest 23.1.0 is installed',
    ]);
    // Without it in the tree, nothing holds the bump.
    expect(checkPeers(bump, direct, nx).updates).toHaveLength(1);
  });

  it("checks each version a name moves to on its own: workspaces on two majors", () => {
    // astro: the root's vitest 4.1.0 -> 4.1.12 and an example's 5 beta -> 5.1.2, beside a
    // plugin asking for "^3.2 || ^4": only the second breaks the range, and it alone is left out.
    const hosts = new Map([
      ...packuments,
      ["plugin", doc("plugin", { "1.0.0": { host: "^1 || ~2.0.0" }, "2.0.0": { host: "^2" } })],
      [
        "host",
        doc("host", {
          "1.0.0": undefined,
          "1.0.1": undefined,
          "2.0.0": undefined,
          "2.1.0": undefined,
        }),
      ],
    ]);
    const inExample = update("host", "2.0.0", "2.1.0", "minor");
    inExample.locations = inExample.locations.map((l) => ({
      ...l,
      manifest: "examples/next/package.json",
    }));
    const inRoot = update("host", "1.0.0", "1.0.1", "patch");
    const result = checkPeers(
      [inRoot, inExample],
      new Map([
        ["plugin", "1.0.0"],
        ["host", "1.0.0"],
      ]),
      hosts,
    );
    expect(result.updates).toEqual([inRoot]);
    expect(result.skipped).toEqual([
      {
        name: "host",
        manifest: "examples/next/package.json",
        reason:
          '2.0.0 -> 2.1.0 is outside the peer range "^1 || ~2.0.0" that plugin 1.0.0 declares (npm would override it with a warning)',
      },
    ]);
    // In the other order too: the update listed last is not the only one checked.
    expect(
      checkPeers(
        [inExample, inRoot],
        new Map([
          ["plugin", "1.0.0"],
          ["host", "1.0.0"],
        ]),
        hosts,
      ).updates,
    ).toEqual([inRoot]);
  });

  it("checks peers inside each workspace, against what its package.json keeps", () => {
    // babel's test/runtime-integration: webpack-cli 4 -> 7 in the webpack-4 and webpack-5
    // fixtures, webpack 5 moving in the second; webpack-cli 7 asks for webpack 5, and the
    // webpack-4 fixture stays on webpack 4. One version per name saw only webpack 5.
    const webpack = new Map([
      [
        "webpack-cli",
        doc("webpack-cli", {
          "4.10.0": { webpack: "4.x.x || 5.x.x" },
          "7.3.1": { webpack: "^5.101.0" },
        }),
      ],
      [
        "webpack",
        doc("webpack", { "4.47.0": undefined, "5.106.2": undefined, "5.113.0": undefined }),
      ],
      ["loader", doc("loader", { "8.0.0": { webpack: ">=2" } })],
      ["plugin", doc("plugin", { "1.0.0": { webpack: "^5.0.0 <5.110.0" } })],
    ]);
    const at = (u: Update, ...manifests: string[]): Update => ({
      ...u,
      locations: manifests.map((manifest) => ({
        ...(u.locations[0] as Update["locations"][0]),
        manifest,
      })),
    });
    const four = "fixtures/webpack-4/package.json";
    const five = "fixtures/webpack-5/package.json";
    const cli = at(update("webpack-cli", "4.10.0", "7.3.1", "major"), four, five);
    const bundler = at(update("webpack", "5.106.2", "5.113.0", "minor"), five);
    const installedIn = new Map([
      [
        four,
        new Map([
          ["webpack", "4.47.0"],
          ["webpack-cli", "4.10.0"],
          ["loader", "8.0.0"],
        ]),
      ],
      [
        five,
        new Map([
          ["webpack", "5.106.2"],
          ["webpack-cli", "4.10.0"],
        ]),
      ],
    ]);
    const direct = new Map([
      ["webpack", "5.106.2"],
      ["webpack-cli", "4.10.0"],
    ]);
    // Without the workspaces' own lists the check passes both.
    expect(checkPeers([cli, bundler], direct, webpack).updates).toEqual([cli, bundler]);
    const result = checkPeers([cli, bundler], direct, webpack, { installedIn });
    expect(result.updates).toEqual([bundler]);
    expect(result.skipped.map((s) => `${s.manifest}: ${s.reason}`)).toEqual([
      `${four}: 4.10.0 -> 7.3.1 needs peer webpack "^5.101.0", and ${four} has webpack 4.47.0`,
      `${five}: 4.10.0 -> 7.3.1 needs peer webpack "^5.101.0", and ${four} has webpack 4.47.0`,
    ]);
    // A package a workspace keeps asks its range of an update there.
    installedIn.set(
      five,
      new Map([
        ["webpack", "5.106.2"],
        ["plugin", "1.0.0"],
      ]),
    );
    const held = checkPeers([bundler], direct, webpack, { installedIn, manager: "pnpm" });
    expect(held.updates).toEqual([]);
    expect(held.skipped.map((s) => s.reason)).toEqual([
      `5.106.2 -> 5.113.0 is outside the peer range "^5.0.0 <5.110.0" that plugin 1.0.0 declares in ${five} (pnpm would install it and report an unmet peer)`,
    ]);
  });

  it("blames the bump that asks for a newer peer, not the peer's own patch beside it", () => {
    // TanStack query: @testing-library/angular 19 asks for Angular >= 21; the plan also moves
    // Angular 20.3.18 -> 20.3.35. Angular 20.3.18 was outside that range already: the major is
    // what breaks it, and the patches stay (every Angular patch was left out for it).
    const withPatch = new Map([
      ...packuments,
      ["host", doc("host", { "1.0.0": undefined, "1.0.1": undefined, "2.0.0": undefined })],
    ]);
    const patch = update("host", "1.0.0", "1.0.1", "patch");
    const result = checkPeers(
      [patch, update("plugin", "1.0.0", "2.0.0", "major")],
      new Map([
        ["plugin", "1.0.0"],
        ["host", "1.0.0"],
      ]),
      withPatch,
    );
    expect(result.updates).toEqual([patch]);
    expect(result.skipped.map((s) => `${s.name}: ${s.reason}`)).toEqual([
      'plugin: 1.0.0 -> 2.0.0 needs peer host "^2", and host 1.0.0 is installed (1.0.1 after this plan)',
    ]);
  });

  it("links bumps that only work together, and they end up in one group", () => {
    const installed = new Map([
      ["plugin", "1.0.0"],
      ["host", "1.0.0"],
    ]);
    const both = [
      update("host", "1.0.0", "2.0.0", "major"),
      update("plugin", "1.0.0", "2.0.0", "major"),
    ];
    const result = checkPeers(both, installed, packuments);
    expect(result.updates).toHaveLength(2);
    expect(result.links).toEqual([["host", "plugin"]]);
    const groups = groupUpdates(result.updates, { groups: [] }, result.links);
    expect(groups.map((g) => [g.slug, g.single, g.updates.map((u) => u.name)])).toEqual([
      ["host-and-plugin-peers", false, ["host", "plugin"]],
    ]);
    // Alone, the plugin's new peer range leaves the installed host out.
    const alone = checkPeers([update("plugin", "1.0.0", "2.0.0", "major")], installed, packuments);
    expect(alone.skipped[0]?.reason).toBe(
      '1.0.0 -> 2.0.0 needs peer host "^2", and host 1.0.0 is installed',
    );
  });
});

describe("project settings", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pw-deps-settings-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("finds the development Node in version files, volta, or the running Node, and engines per manifest", async () => {
    const nodes = (json: Record<string, unknown>) =>
      readProjectNodes({
        dir,
        manifests: [{ path: "package.json", json }],
        npmOptions: {},
        runningNode: "v20.18.0",
      });
    expect(await nodes({ engines: { node: ">=18.12" } })).toEqual({
      development: { label: "20.18.0", version: "20.18.0", source: "this job", role: "running" },
      engines: {
        "package.json": {
          label: ">=18.12",
          version: "18.12.0",
          source: "package.json engines.node",
          role: "engines",
        },
      },
    });
    expect((await nodes({ volta: { node: "18.20.4" } })).development).toMatchObject({
      version: "18.20.4",
      source: "package.json volta.node",
    });
    await writeFile(join(dir, ".tool-versions"), "python 3.12.0\nnodejs 19.9.0 18.0.0\n");
    expect((await nodes({})).development).toMatchObject({
      label: "19.9.0",
      source: ".tool-versions",
    });
    await writeFile(join(dir, ".nvmrc"), "v18\n");
    expect((await nodes({})).development).toMatchObject({
      label: "18.x",
      source: ".nvmrc",
      role: "development",
    });
  });

  it("reads the strictest minimum release age of npm, pnpm and yarn", async () => {
    expect(await readReleaseAge(dir, { options: {} })).toBeUndefined();
    expect(await readReleaseAge(dir, { options: { "min-release-age": "7" } })).toMatchObject({
      ms: 7 * 86_400_000,
      source: "min-release-age=7 (.npmrc)",
    });
    await writeFile(join(dir, "pnpm-workspace.yaml"), "minimumReleaseAge: 14400\n");
    await writeFile(join(dir, ".yarnrc.yml"), 'npmMinimalAgeGate: "3d"\n');
    expect(await readReleaseAge(dir, { options: { "min-release-age": "2" } })).toMatchObject({
      ms: 14400 * 60_000,
      source: "minimumReleaseAge: 14400 in pnpm-workspace.yaml",
    });
  });
});
