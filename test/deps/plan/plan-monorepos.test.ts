import { describe, expect, it } from "vitest";
import { editManifest, manifestEdits } from "../../../src/deps/managers/bump.js";
import type { UpdateGroup } from "../../../src/deps/plan/groups.js";
import { newestLts } from "../../../src/deps/plan/node/node-version.js";
import { nodeStatement } from "../../../src/deps/plan/node/project-node.js";
import { fromVersions } from "../../../src/deps/plan/outdated.js";
import { renderDepsPlan } from "../../../src/deps/plan/render-plan.js";
import { aliasNamedLine, folderNamedMajor } from "../../../src/deps/plan/spec.js";
import { renderDepsPullRequestBody } from "../../../src/deps/publish/pr-body.js";
import type { Update } from "../../../src/deps/update.js";
import {
  greenResult,
  memoryRegistry,
  NOW,
  NVMRC_24,
  npmLock,
  packument,
  projectPlanner,
} from "../memory-registry.js";

/**
 * Plans on small excerpts of real monorepos (the manifests and lockfiles of
 * a yarn 4 formatter, a pnpm workspace, a bun library, an npm CLI), each
 * reproducing what a maintainer stopped at in `patchwright deps --dry-run`.
 */

const planOf = projectPlanner("pw-plan-monorepos-");

const text = (plan: Awaited<ReturnType<typeof planOf>>["plan"]) =>
  renderDepsPlan(plan, { now: NOW, branchPrefix: "agent/" });
const moves = (plan: Awaited<ReturnType<typeof planOf>>["plan"]) =>
  plan.groups.flatMap((g) => g.updates.map((u) => `${u.name} ${fromVersions(u)}->${u.to}`));

/** A yarn 4 formatter that formats its own sources with its last release. */
const formatter = {
  "package.json": JSON.stringify({
    name: "fmt",
    version: "3.10.0-dev",
    packageManager: "yarn@4.17.1",
    workspaces: ["packages/*"],
    devDependencies: { fmt: "3.9.6", typescript: "^6.0.3", "lint-plugin": "^8.0.0" },
  }),
  "packages/a/package.json": JSON.stringify({ name: "@fmt/a", version: "1.2.0" }),
  "packages/b/package.json": JSON.stringify({
    name: "@fmt/b",
    dependencies: { "@fmt/a": "^1.0.0", fmt: "workspace:*" },
  }),
  "yarn.lock": [
    "__metadata:",
    "  version: 8",
    "",
    '"@fmt/a@npm:^1.0.0, @fmt/a@workspace:packages/a":',
    "  version: 0.0.0-use.local",
    '  resolution: "@fmt/a@workspace:packages/a"',
    "",
    '"fmt@npm:3.9.6":',
    "  version: 3.9.6",
    '  resolution: "fmt@npm:3.9.6"',
    "",
    '"fmt@workspace:*, fmt@workspace:.":',
    "  version: 0.0.0-use.local",
    '  resolution: "fmt@workspace:."',
    "",
    '"lint-plugin@npm:^8.0.0":',
    "  version: 8.0.0",
    '  resolution: "lint-plugin@npm:8.0.0"',
    "",
    '"typescript@npm:^6.0.3":',
    "  version: 6.0.3",
    '  resolution: "typescript@npm:6.0.3"',
    "",
  ].join("\n"),
};
const formatterRegistry = () =>
  memoryRegistry([
    packument("fmt", ["3.9.6", "3.10.0", "3.10.1"]),
    packument("@yarnpkg/cli-dist", ["4.17.1", "4.18.1"]),
    packument("typescript", ["6.0.3", "7.0.2"]),
    packument("lint-plugin", { "8.0.0": { peers: { typescript: "<6.1.0" } } }),
  ]);

describe("workspace packages and self-named dependencies", () => {
  it("bumps a dependency on a published version of the root package itself, and counts real links", async () => {
    const { plan } = await planOf(formatter, formatterRegistry());
    expect(moves(plan)).toEqual(["fmt 3.9.6->3.10.1", "yarn 4.17.1->4.18.1"]);
    // @fmt/b's "@fmt/a": "^1.0.0" (linked in yarn.lock) and "fmt": "workspace:*".
    expect(plan.internal).toBe(2);
    const out = text(plan);
    expect(out).toContain(
      "2 dependencies are on this workspace's own packages (linked by yarn, not bumped).",
    );
    expect(out).toContain(
      'typescript (package.json): 6.0.3 -> 7.0.2 is outside the peer range "<6.1.0" that lint-plugin 8.0.0 declares (yarn would install it with an incompatible-peer warning)',
    );
    expect(out).not.toMatch(/npm would|linked by npm/);
  });

  it("takes a range the workspace satisfies for a registry one when the lockfile resolves it there", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({ name: "app", workspaces: ["packages/*"] }),
        "packages/a/package.json": JSON.stringify({ name: "a", version: "1.0.0" }),
        "packages/b/package.json": JSON.stringify({
          name: "b",
          dependencies: { a: "^1.0.0", c: "^1.0.0" },
        }),
        "packages/c/package.json": JSON.stringify({ name: "c", version: "1.1.0" }),
        // npm links c, but installed a from the registry (an older workspace layout).
        "package-lock.json": JSON.stringify({
          lockfileVersion: 3,
          packages: {
            "": {},
            "node_modules/a": { version: "1.0.0", resolved: "https://r/a-1.0.0.tgz" },
            "node_modules/c": { resolved: "packages/c", link: true },
          },
        }),
      },
      memoryRegistry([packument("a", ["1.0.0", "1.2.0"])]),
    );
    expect(moves(plan)).toEqual(["a 1.0.0->1.2.0"]);
    expect(plan.internal).toBe(1);
  });
});

describe("peers on the workspace's own packages", () => {
  it("leaves a sibling's peer range on a package the workspace publishes to the project", async () => {
    // sveltejs/kit's layout: kit 3 is developed in the workspace, its adapters
    // support kit 2 as a peer and link the workspace's kit to develop on it.
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          private: true,
          packageManager: "pnpm@10.12.1",
        }),
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "packages/kit/package.json": JSON.stringify({ name: "kit", version: "3.0.0-next.16" }),
        "packages/adapter/package.json": JSON.stringify({
          name: "adapter",
          version: "7.0.0",
          peerDependencies: { kit: "^2.31.0" },
          devDependencies: { kit: "workspace:^", lib: "^3.24.3" },
        }),
        "pnpm-lock.yaml": [
          "lockfileVersion: '9.0'",
          "importers:",
          "  .: {}",
          "  packages/kit: {}",
          "  packages/adapter:",
          "    devDependencies:",
          "      kit:",
          "        specifier: workspace:^",
          "        version: link:../kit",
          "      lib:",
          "        specifier: ^3.24.3",
          "        version: 3.24.3",
          "",
        ].join("\n"),
      },
      memoryRegistry([
        packument("kit", ["2.31.0", "2.70.4", "3.2.0"]),
        packument("lib", ["3.24.3", "3.24.4"]),
        packument("pnpm", ["10.12.1"]),
      ]),
    );
    expect(moves(plan)).toEqual(["lib 3.24.3->3.24.4"]);
    expect(plan.skipped.filter((s) => s.name === "kit")).toEqual([]);
    expect(plan.internal).toBe(2);
    expect(text(plan)).toContain(
      "2 dependencies are on this workspace's own packages (linked by pnpm, not bumped).",
    );
  });
});

describe("the Node a plan states", () => {
  it("names each engines range once, with where it is", () => {
    const engines = (label: string, ...paths: string[]) =>
      paths.map((path) => [
        path,
        { label, version: "22.22.0", source: `${path} engines.node`, role: "engines" as const },
      ]);
    const statement = nodeStatement({
      development: NVMRC_24,
      engines: Object.fromEntries([
        ...engines(">=22.22.0", "package.json", "a/package.json", "b/package.json"),
        ...engines(">=24", "scripts/package.json"),
        ...engines(">= 20", "x/package.json", "y/package.json"),
      ]),
    });
    expect(statement).toBe(
      "Node 24.x (from .nvmrc), runtime dependencies also checked against engines >=22.22.0 (package.json and 2 more), >=24 (scripts/package.json), >= 20 (x/package.json, y/package.json)",
    );
  });
});

describe("a package manager without an age gate", () => {
  it("is planned as resolving past the cooldown: pnpm before 10.16", async () => {
    // pinia pins pnpm@9.4.0: its relock took vue 3.5.47, two days old, where the plan had 3.5.46.
    const project = (packageManager: string) => ({
      "package.json": JSON.stringify({
        name: "app",
        packageManager,
        dependencies: { vue: "^3.5.11" },
      }),
      "pnpm-lock.yaml": [
        "lockfileVersion: '9.0'",
        "importers:",
        "  .:",
        "    dependencies:",
        "      vue:",
        "        specifier: ^3.5.11",
        "        version: 3.5.11",
        "",
      ].join("\n"),
    });
    const registry = () =>
      memoryRegistry([
        packument("vue", {
          "3.5.11": { daysAgo: 300 },
          "3.5.46": { daysAgo: 15 },
          "3.5.47": { daysAgo: 2 },
        }),
        packument("pnpm", ["9.4.0", "10.34.8"]),
      ]);
    const cooldown = { cooldown_days: 3 };
    const old = await planOf(project("pnpm@9.4.0"), registry(), cooldown);
    expect(moves(old.plan)).not.toContain("vue 3.5.11->3.5.46");
    expect(old.plan.skipped.map((s) => `${s.name}: ${s.reason}`)).toContain(
      "vue: 3.5.11 -> 3.5.46 not proposed: pnpm would lock 3.5.47 instead, the newest release the new range ^3.5.46 allows, which the plan passes over (released 2 days ago, inside the 3 days cooldown; pnpm 9.4.0 has no age gate (pnpm 10.16 added it)); a range that stops below it (an exact version) would take 3.5.46",
    );
    const gated = await planOf(project("pnpm@10.34.8"), registry(), cooldown);
    expect(moves(gated.plan)).toContain("vue 3.5.11->3.5.46");
  });
});

describe("the package manager's own version", () => {
  const RELEASE = "/* yarn 4.17.1 */\n";
  const bundle = { package: "@yarnpkg/cli-dist", file: "bin/yarn.js" };

  it("replaces the release file yarnPath names, as yarn set version does", async () => {
    const { plan } = await planOf(
      {
        ...formatter,
        ".yarnrc.yml": "nodeLinker: node-modules\nyarnPath: .yarn/releases/yarn-4.17.1.cjs\n",
        ".yarn/releases/yarn-4.17.1.cjs": RELEASE,
      },
      formatterRegistry(),
    );
    expect(moves(plan)).toEqual(["fmt 3.9.6->3.10.1", "yarn 4.17.1->4.18.1"]);
    const yarn = plan.groups.flatMap((g) => g.updates).find((u) => u.name === "yarn");
    expect(yarn?.locations).toEqual([
      {
        manifest: "package.json",
        section: "packageManager",
        spec: "yarn@4.17.1",
        newSpec: "yarn@4.18.1",
        from: "4.17.1",
        release: {
          file: ".yarn/releases/yarn-4.18.1.cjs",
          settings: ".yarnrc.yml",
          replaces: ".yarn/releases/yarn-4.17.1.cjs",
          from: bundle,
        },
      },
    ]);
    expect(plan.skipped.map((s) => s.name)).not.toContain("yarn");
    expect(text(plan)).toContain(
      "yarn (npm:@yarnpkg/cli-dist)  4.17.1 -> 4.18.1  (minor, released 100 days ago; package.json packageManager and .yarn/releases/yarn-4.18.1.cjs)",
    );
  });

  it("keeps a release yarnPath names outside .yarn/releases, as yarn set version does", async () => {
    const { plan } = await planOf(
      {
        ...formatter,
        ".yarnrc.yml": "yarnPath: './tools/yarn.cjs'\n",
        "tools/yarn.cjs": RELEASE,
      },
      formatterRegistry(),
    );
    const yarn = plan.groups.flatMap((g) => g.updates).find((u) => u.name === "yarn");
    expect(yarn?.locations[0]?.release).toEqual({
      file: ".yarn/releases/yarn-4.18.1.cjs",
      settings: ".yarnrc.yml",
      from: bundle,
    });
  });

  it("lists packageManager as yarn set version would change it when yarnPath names no file here", async () => {
    const { plan } = await planOf(
      { ...formatter, ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.17.1.cjs\n" },
      formatterRegistry(),
    );
    expect(moves(plan)).toEqual(["fmt 3.9.6->3.10.1"]);
    expect(plan.skipped).toContainEqual({
      name: "yarn",
      manifest: "package.json",
      reason:
        "packageManager field: 4.17.1 -> 4.18.1 (minor) listed, not proposed: .yarnrc.yml's yarnPath runs .yarn/releases/yarn-4.17.1.cjs whatever the field says: run `yarn set version 4.18.1`, which replaces both",
    });
  });
});

describe("a package one manifest names in two sections", () => {
  it("says the section of what is left out, beside the one bumped", async () => {
    // typeorm's drivers, zustand's react: a wide peer range and an exact dev copy.
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "orm",
          devDependencies: { driver: "7.5.0", other: "1.0.0" },
          peerDependencies: { driver: "^7.0.0", other: "^1.0.0" },
        }),
        "package-lock.json": npmLock({ driver: "7.5.0", other: "1.0.0" }),
      },
      memoryRegistry([packument("driver", ["7.5.0", "7.9.1"]), packument("other", ["1.0.0"])]),
    );
    expect(moves(plan)).toEqual(["driver 7.5.0->7.9.1"]);
    expect(plan.skipped).toEqual([
      {
        name: "driver",
        manifest: "package.json",
        section: "peerDependencies",
        reason:
          '7.5.0 -> 7.9.1 not proposed: 7.9.1 is inside the peer range "^7.0.0", which already accepts it (range strategy widen)',
      },
    ]);
    expect(text(plan)).toContain(
      '  driver (package.json peerDependencies): 7.5.0 -> 7.9.1 not proposed: 7.9.1 is inside the peer range "^7.0.0"',
    );
  });
});

describe("another tool's lockfile beside the manager's own", () => {
  it("is named in the plan's first line, left as it is", async () => {
    const { plan } = await planOf(
      { ...formatter, "package-lock.json": JSON.stringify({ lockfileVersion: 3, packages: {} }) },
      formatterRegistry(),
    );
    expect(plan.manager).toBe("yarn-berry");
    expect(plan.otherLockfiles).toEqual(["package-lock.json"]);
    expect(text(plan).split("\n")[0]).toBe(
      "Registry https://registry.npmjs.org/; 3 package.json files; yarn-berry (package.json packageManager yarn@4.17.1); package-lock.json is here too, another tool's lockfile: left as it is, its versions fall behind.",
    );
    expect(text((await planOf(formatter, formatterRegistry())).plan)).not.toContain("here too");
  });
});

describe("the package manager devEngines asks for", () => {
  // npm and pnpm 11 check package.json's devEngines.packageManager (onFail: error,
  // the default, refuses to run); typeorm keeps one beside packageManager.
  const withDevEngines = (version: string, onFail = "error") => ({
    ...formatter,
    "package.json": JSON.stringify({
      ...JSON.parse(formatter["package.json"]),
      devEngines: { packageManager: { name: "yarn", version, onFail } },
    }),
  });

  it("lists a packageManager update that devEngines' range leaves out, saying to change both", async () => {
    const { plan } = await planOf(withDevEngines("4.17.x"), formatterRegistry());
    expect(moves(plan)).toEqual(["fmt 3.9.6->3.10.1"]);
    expect(plan.skipped).toContainEqual({
      name: "yarn",
      manifest: "package.json",
      reason:
        'packageManager field: 4.17.1 -> 4.18.1 (minor) listed, not proposed: devEngines.packageManager asks for yarn "4.17.x", which 4.18.1 is outside (onFail: error): change the range with the field',
    });
  });

  it("proposes one that devEngines' range takes, or that it only warns about", async () => {
    for (const devEngines of [withDevEngines("^4.17.1"), withDevEngines("4.17.x", "warn")]) {
      const { plan } = await planOf(devEngines, formatterRegistry());
      expect(moves(plan)).toContain("yarn 4.17.1->4.18.1");
    }
  });
});

describe("the Node a plan assumes", () => {
  const library = {
    "package.json": JSON.stringify({
      name: "lib",
      engines: { node: ">=16.9.0" },
      dependencies: { dep: "^1.0.0" },
      devDependencies: { runner: "^4.0.0", cloud: "4.107.0" },
    }),
    "package-lock.json": npmLock({ dep: "1.0.0", runner: "4.0.0", cloud: "4.107.0" }),
  };
  const registry = memoryRegistry([
    packument("dep", { "1.0.0": {}, "2.0.0": { node: ">=22" } }),
    packument("runner", { "4.0.0": {}, "5.0.0": { node: "^22.12.0 || ^24.0.0 || >=26.0.0" } }),
    packument("cloud", {
      "4.107.0": { node: ">=20.0.0" },
      "4.158.0": { node: ">=20.0.0" },
      "4.164.0": { node: ">=22.12.0" },
    }),
  ]);

  it("holds devDependencies to the development Node and runtime ones to engines too, and says so first", async () => {
    const { plan } = await planOf({ ...library, ".tool-versions": "nodejs 24.7.0\n" }, registry);
    expect(moves(plan).sort()).toEqual(["cloud 4.107.0->4.164.0", "runner 4.0.0->5.0.0"]);
    const out = text(plan).split("\n");
    expect(out[1]).toBe(
      "Node 24.7.0 (from .tool-versions), runtime dependencies also checked against engines >=16.9.0.",
    );
    expect(out).toContain(
      "  dep (package.json): 1.0.0 kept: 2.0.0: needs Node >=22, and package.json engines.node is >=16.9.0",
    );
  });

  it("never says the project's Node is one a proposal beside it leaves out", async () => {
    // No development Node named: the dev tool is held to engines too, and the reason is true next to 4.158.0.
    const { plan } = await planOf(
      {
        ...library,
        "package.json": JSON.stringify({
          name: "lib",
          engines: { node: ">=16.9.0" },
          dependencies: { cloud: "4.107.0" },
        }),
      },
      registry,
    );
    const cloud = plan.groups.flatMap((g) => g.updates).find((u) => u.name === "cloud");
    expect(cloud?.to).toBe("4.158.0");
    expect(cloud?.passedOver).toEqual([
      "4.164.0: needs Node >=22.12.0, more than the >=20.0.0 that 4.107.0 already needs (package.json engines.node is >=16.9.0)",
    ]);
  });

  it("reads .nvmrc 24 as the newest 24.x, and finds .node-version and the CI workflow too", async () => {
    const tsdown = memoryRegistry([
      packument("tsdown", {
        "0.21.10": {},
        "0.23.7": { node: "^22.18.0 || ^24.11.0 || >=26.0.0" },
      }),
    ]);
    const app = {
      "package.json": JSON.stringify({ name: "app", devDependencies: { tsdown: "^0.21.10" } }),
      "package-lock.json": npmLock({ tsdown: "0.21.10" }),
    };
    const nvmrc = await planOf({ ...app, ".nvmrc": "24\n" }, tsdown);
    expect(moves(nvmrc.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
    expect(text(nvmrc.plan).split("\n")[1]).toBe("Node 24.x (from .nvmrc).");
    const nodeVersion = await planOf({ ...app, ".node-version": "v24.7.0\n" }, tsdown);
    expect(nodeVersion.plan.node.development).toMatchObject({
      label: "24.7.0",
      source: ".node-version",
    });
    expect(moves(nodeVersion.plan)).toEqual([]);
    const workflow = [
      "jobs:",
      "  test:",
      "    strategy:",
      "      matrix:",
      "        node: ['22.x', '24']",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "          node-version: ${{ matrix.node }}",
      "  legacy:",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      "          node-version: 14",
      "  package:",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      "          node-version: 20.x",
      "      - run: npm ci --omit=dev && node smoke.js",
      "",
    ].join("\n");
    const ci = await planOf(
      {
        ...app,
        "package.json": JSON.stringify({
          name: "app",
          engines: { node: ">=18" },
          devDependencies: { tsdown: "^0.21.10" },
        }),
        ".github/workflows/ci.yml": workflow,
      },
      tsdown,
    );
    // The lowest the tools are tested on: not a legacy job below engines.node, nor one without devDependencies.
    expect(ci.plan.node.development).toMatchObject({
      label: "22.x",
      source: ".github/workflows/ci.yml node-version",
      role: "ci",
    });
    expect(moves(ci.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);

    // typescript-eslint sets Node up through its own action, from the workflow's env;
    // nuxt through voidzero-dev/setup-vp. Both are the project's CI Node.
    const wrapped = [
      "env:",
      "  PRIMARY_NODE_VERSION: 22",
      "jobs:",
      "  lint:",
      "    steps:",
      "      - uses: ./.github/actions/prepare-install",
      "        with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "          node-version: ${{ env.PRIMARY_NODE_VERSION }}",
      "  typecheck:",
      "    steps:",
      "      - uses: voidzero-dev/setup-vp@v1",
      "        with:",
      "          node-version: lts",
      "",
    ].join("\n");
    const own = await planOf({ ...app, ".github/workflows/ci.yml": wrapped }, tsdown);
    expect(own.plan.node.development).toMatchObject({
      label: "22.x",
      source: ".github/workflows/ci.yml node-version",
      role: "ci",
    });

    // The repository's own composite action sets Node up: fixed inside it (react-hook-form's
    // 22, effect's 26.4.0), or from its input, given by the step or defaulted (typeorm's "24").
    const calls = (...withs: string[]) =>
      [
        "jobs:",
        ...withs.flatMap((given, i) => [
          `  job${i}:`,
          "    steps:",
          "      - uses: ./.github/actions/setup",
          ...(given ? ["        with:", `          node-version: ${given}`] : []),
        ]),
        "",
      ].join("\n");
    const composite = (nodeVersion: string) =>
      [
        "name: setup",
        "inputs:",
        "  node-version:",
        '    default: "24"',
        "runs:",
        "  using: composite",
        "  steps:",
        "    - uses: actions/setup-node@v6",
        "      with:",
        `        node-version: ${nodeVersion}`,
        "",
      ].join("\n");
    const development = async (workflow: string, action: string, file = "action.yml") =>
      (
        await planOf(
          {
            ...app,
            ".github/workflows/ci.yml": workflow,
            [`.github/actions/setup/${file}`]: action,
          },
          tsdown,
        )
      ).plan.node.development;
    expect(await development(calls(""), composite("22"))).toMatchObject({
      label: "22.x",
      source: ".github/actions/setup/action.yml node-version",
      role: "ci",
    });
    expect(await development(calls(""), composite("26.4.0"), "action.yaml")).toMatchObject({
      label: "26.4.0",
      source: ".github/actions/setup/action.yaml node-version",
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    const input = composite("${{ inputs.node-version }}");
    expect(await development(calls(""), input)).toMatchObject({
      label: "24.x",
      source: ".github/actions/setup/action.yml node-version",
    });
    expect(await development(calls("", "20"), input)).toMatchObject({
      label: "20.x",
      source: ".github/workflows/ci.yml node-version",
    });
    // An action that sets no node-version of its own leaves the step's value (it may pass it on).
    const passesOn = [
      "runs:",
      "  using: composite",
      "  steps:",
      "    - uses: ./.github/actions/node",
      "",
    ];
    expect(await development(calls("20"), passesOn.join("\n"))).toMatchObject({
      label: "20.x",
      source: ".github/workflows/ci.yml node-version",
    });
    // An action that does not parse, or is not there, gives nothing.
    expect(await development(calls(""), "runs: [")).toMatchObject({ role: "running" });
    const elsewhere = ["jobs:", "  a:", "    steps:", "      - uses: ./tools/setup", ""].join("\n");
    expect(await development(elsewhere, composite("22"))).toMatchObject({ role: "running" });

    // typeorm calls a reusable workflow with its matrix: 20 and 24 are its tests' Nodes.
    const reusable = [
      "jobs:",
      "  tests-linux:",
      "    strategy:",
      "      matrix:",
      "        node-version: [20, 24]",
      "    uses: ./.github/workflows/tests-linux.yml",
      "    with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "      node-version: ${{matrix.node-version}}",
      "",
    ].join("\n");
    const called = (
      await planOf(
        {
          ...app,
          ".github/workflows/tests.yml": reusable,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression, as written in the file
          ".github/workflows/tests-linux.yml": calls("${{ inputs.node-version }}"),
          ".github/actions/setup/action.yml": input,
        },
        tsdown,
      )
    ).plan.node.development;
    expect(called).toMatchObject({
      label: "20.x",
      source: ".github/workflows/tests.yml node-version",
    });

    // babel: the root states no engines.node, its packages do; its tools run on
    // `*` (the newest) and on a test matrix, and a job tests the built runtime
    // on Node 10 through 23. The tools' lowest Node is the matrix's 22.
    const babel = [
      "jobs:",
      "  publint:",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      '          node-version: "*"',
      "  test:",
      "    strategy:",
      "      matrix:",
      "        node-version: [25, 24, 22]",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      "          node-version: latest",
      "      - uses: actions/setup-node@v6",
      "        with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "          node-version: ${{ matrix.node-version }}",
      "  runtime-interop:",
      "    strategy:",
      "      matrix:",
      '        node-version: [10, "12.0", 16.6, "23.10"]',
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "          node-version: ${{ matrix.node-version }}",
      "",
    ].join("\n");
    const workspace = {
      ...app,
      "package.json": JSON.stringify({
        name: "babel",
        private: true,
        workspaces: ["packages/*"],
        devDependencies: { tsdown: "^0.21.10" },
      }),
      "packages/core/package.json": JSON.stringify({
        name: "core",
        engines: { node: "^22.18.0 || >=24.11.0" },
      }),
      ".github/workflows/ci.yml": babel,
    };
    const floor = await planOf(workspace, tsdown);
    expect(floor.plan.node.development).toMatchObject({ label: "22.x", role: "ci" });
    expect(moves(floor.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
    // `*` alone is the newest Node, not 0.0.0.
    const star = await planOf(
      { ...app, ".github/workflows/ci.yml": babel.split("  test:")[0] as string },
      tsdown,
    );
    expect(star.plan.node.development).toMatchObject({
      label: `${newestLts(Date.now())}.x`,
      role: "ci",
    });
    expect(moves(star.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);

    // webpack: its integration matrix runs Node 10 through 26, and on 10 to 20 it first
    // downgrades its tools with yarn's --ignore-engines; 22 runs them as they are.
    const legacy = [
      "jobs:",
      "  integration:",
      "    strategy:",
      "      matrix:",
      "        node-version: [10.x, 22.x, 24.x]",
      "        include:",
      "          - node-version: 16.x",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "          node-version: ${{ matrix.node-version }}",
      "      - run: |",
      "          yarn upgrade jest@^27.5.0 --ignore-engines",
      "          yarn --frozen-lockfile --ignore-engines",
      "        if: matrix.node-version == '10.x' || matrix['node-version'] == '16.x'",
      "      - run: yarn --frozen-lockfile",
      "",
    ].join("\n");
    const webpack = await planOf({ ...app, ".github/workflows/test.yml": legacy }, tsdown);
    expect(webpack.plan.node.development).toMatchObject({ label: "22.x", role: "ci" });
    // A job that installs past the engines on every Node is not counted at all.
    const always = legacy.replace(/\n {8}if: .*\n/, "\n");
    const none = await planOf({ ...app, ".github/workflows/test.yml": always }, tsdown);
    expect(none.plan.node.development.role).toBe("running");
  });
});

describe("the Node a workflow's node-version-file names", () => {
  const tsdown = memoryRegistry([
    packument("tsdown", {
      "0.21.10": {},
      "0.23.7": { node: "^22.18.0 || ^24.11.0 || >=26.0.0" },
    }),
  ]);
  const manifest = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name: "app", devDependencies: { tsdown: "^0.21.10" }, ...extra });
  const lock = npmLock({ tsdown: "0.21.10" });
  const setup = (...withs: string[]) =>
    [
      "jobs:",
      "  test:",
      "    steps:",
      "      - uses: actions/setup-node@v6",
      "        with:",
      ...withs.map((line) => `          ${line}`),
      "      - run: npm ci && npm test",
      "",
    ].join("\n");
  const planWith = (files: Record<string, string>) =>
    planOf({ "package.json": manifest(), "package-lock.json": lock, ...files }, tsdown);

  it("reads package.json's engines.node as setup-node does: the newest Node the range allows", async () => {
    // A workflow on `node-version-file: package.json` and engines `>=22.18`: setup-node
    // installs the newest Node, so the tools are not held to the Node running the job.
    const open = await planWith({
      "package.json": manifest({ engines: { node: ">=22.18.0" } }),
      ".github/workflows/ci.yml": setup("node-version-file: package.json"),
    });
    expect(open.plan.node.development).toEqual({
      label: `${newestLts(Date.now())}.x`,
      version: `${newestLts(Date.now())}.999999.999999`,
      source: ".github/workflows/ci.yml node-version-file package.json engines.node",
      role: "ci",
    });
    expect(moves(open.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
    // A range inside a line is that line's newest, quoted or not.
    const caret = await planWith({
      "package.json": manifest({ engines: { node: "^20.19.0" } }),
      ".github/workflows/ci.yml": setup("node-version-file: 'package.json'"),
    });
    expect(caret.plan.node.development).toMatchObject({ label: "20.x", role: "ci" });
    expect(moves(caret.plan)).toEqual([]);
    // volta.node and devEngines.runtime come first, as in setup-node.
    const both = await planWith({
      "tools/package.json": JSON.stringify({
        devEngines: { runtime: [{ name: "bun" }, { name: "node", version: "22.12.0" }] },
        engines: { node: ">=18" },
      }),
      ".github/workflows/ci.yml": setup("node-version-file: ./tools/package.json"),
    });
    expect(both.plan.node.development).toMatchObject({
      label: "22.12.0",
      source: ".github/workflows/ci.yml node-version-file tools/package.json devEngines.runtime",
    });
    expect(moves(both.plan)).toEqual([]);
    // Volta's workspaces: a package's `volta.extends` names the file with the Node.
    const extended = await planWith({
      "apps/web/package.json": JSON.stringify({ volta: { extends: "../../tools/volta.json" } }),
      "tools/volta.json": JSON.stringify({ volta: { node: "24.11.1" } }),
      ".github/workflows/ci.yml": setup("node-version-file: apps/web/package.json"),
    });
    expect(extended.plan.node.development).toMatchObject({
      label: "24.11.1",
      source: ".github/workflows/ci.yml node-version-file tools/volta.json volta.node",
    });
    expect(moves(extended.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
  });

  it("reads other version files and action metadata, and a composite action's input", async () => {
    const nested = await planWith({
      "web/.nvmrc": "# the web app's Node\nv24.11.0\n",
      ".github/workflows/ci.yml": setup("node-version-file: web/.nvmrc"),
    });
    expect(nested.plan.node.development).toMatchObject({
      label: "24.11.0",
      source: ".github/workflows/ci.yml node-version-file web/.nvmrc",
      role: "ci",
    });
    const tools = await planWith({
      "ci/.tool-versions": "python 3.12.1\nnodejs 22.18.0 20.19.0\n",
      ".github/workflows/ci.yml": setup("node-version-file: ci/.tool-versions"),
    });
    expect(tools.plan.node.development).toMatchObject({ label: "22.18.0" });
    const metadata = await planWith({
      "action.yml": "name: mine\nruns:\n  using: 'node24'\n  main: dist/index.js\n",
      ".github/workflows/ci.yml": setup("node-version-file: action.yml"),
    });
    expect(metadata.plan.node.development).toMatchObject({
      label: "24.x",
      source: ".github/workflows/ci.yml node-version-file action.yml runs.using",
    });
    // node-version wins when a step gives both (setup-node warns and uses it).
    const given = await planWith({
      "web/.nvmrc": "24\n",
      ".github/workflows/ci.yml": setup("node-version: 20", "node-version-file: web/.nvmrc"),
    });
    expect(given.plan.node.development).toMatchObject({
      label: "20.x",
      source: ".github/workflows/ci.yml node-version",
    });
    // A composite action of the repository's own, its input defaulting to package.json.
    const action = [
      "inputs:",
      "  node-version-file:",
      "    default: package.json",
      "runs:",
      "  using: composite",
      "  steps:",
      "    - uses: actions/setup-node@v6",
      "      with:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      "        node-version-file: ${{ inputs.node-version-file }}",
      "",
    ].join("\n");
    const composite = await planWith({
      "package.json": manifest({ engines: { node: "^22.18.0" } }),
      ".github/actions/setup/action.yml": action,
      ".github/workflows/ci.yml": [
        "jobs:",
        "  test:",
        "    steps:",
        "      - uses: ./.github/actions/setup",
        "",
      ].join("\n"),
    });
    expect(composite.plan.node.development).toMatchObject({
      label: "22.x",
      source: ".github/actions/setup/action.yml node-version-file package.json engines.node",
    });
    expect(moves(composite.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
  });

  it("follows a composite action into the composite action it calls", async () => {
    const action = (inputDefault: string, step: string[]) =>
      [
        "inputs:",
        "  node-version:",
        `    default: "${inputDefault}"`,
        "runs:",
        "  using: composite",
        "  steps:",
        ...step.map((line) => `    ${line}`),
        "",
      ].join("\n");
    const setupNode = (version: string) => [
      "- uses: actions/setup-node@v6",
      "  with:",
      `    node-version: ${version}`,
    ];
    // Effect-like: the workflow's action installs and calls another of the
    // repository's actions, which sets Node up, fixed or from its own input's default.
    const outer = action("20", ["- uses: ./.github/actions/node", "- run: pnpm install"]);
    const workflow = [
      "jobs:",
      "  test:",
      "    steps:",
      "      - uses: ./.github/actions/setup",
      "",
    ].join("\n");
    const fixed = await planWith({
      ".github/actions/setup/action.yml": outer,
      ".github/actions/node/action.yml": action("18", setupNode("22.18")),
      ".github/workflows/ci.yml": workflow,
    });
    expect(fixed.plan.node.development).toMatchObject({
      label: "22.18.x",
      source: ".github/actions/node/action.yml node-version",
      role: "ci",
    });
    expect(moves(fixed.plan)).toEqual(["tsdown 0.21.10->0.23.7"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    const fromInput = action("24", setupNode("${{ inputs.node-version }}"));
    const defaulted = await planWith({
      ".github/actions/setup/action.yml": outer,
      ".github/actions/node/action.yml": fromInput,
      ".github/workflows/ci.yml": workflow,
    });
    expect(defaulted.plan.node.development).toMatchObject({
      label: "24.x",
      source: ".github/actions/node/action.yml node-version",
    });
    // An action that calls itself ends where it started.
    const loop = await planWith({
      ".github/actions/setup/action.yml": action("24", [
        "- uses: ./.github/actions/setup",
        ...setupNode("22.18"),
      ]),
      ".github/workflows/ci.yml": workflow,
    });
    expect(loop.plan.node.development).toMatchObject({ label: "22.18.x" });
  });

  it("gives nothing for a file that is missing, names no Node, or is outside the tree", async () => {
    for (const file of ["missing/.nvmrc", "notes.json", "../outside/package.json"]) {
      const { plan } = await planWith({
        "notes.json": JSON.stringify({ name: "notes" }),
        ".github/workflows/ci.yml": setup(`node-version-file: ${file}`),
      });
      expect(plan.node.development.role, file).toBe("running");
    }
  });
});

describe("a bun library pinned to a nightly prerelease", () => {
  it("proposes the newer build of the same channel", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "web",
          packageManager: "bun@1.2.20",
          devDependencies: { "@typescript/native-preview": "7.0.0-dev.20260210.1" },
        }),
        "bun.lock": JSON.stringify({
          lockfileVersion: 1,
          workspaces: { "": { name: "web" } },
          packages: {
            "@typescript/native-preview": [
              "@typescript/native-preview@7.0.0-dev.20260210.1",
              "",
              {},
              "sha512-x",
            ],
          },
        }),
      },
      memoryRegistry([
        packument("bun", ["1.2.20"]),
        packument("@typescript/native-preview", {
          "7.0.0-dev.20260210.1": { daysAgo: 200 },
          "7.0.0-dev.20260707.2": { daysAgo: 20 },
        }),
      ]),
    );
    const [update] = plan.groups.flatMap((g) => g.updates);
    expect([update?.from, update?.to, update?.locations[0]?.newSpec]).toEqual([
      "7.0.0-dev.20260210.1",
      "7.0.0-dev.20260707.2",
      "7.0.0-dev.20260707.2",
    ]);
  });
});

/** A pnpm workspace: typescript at three versions, an npm alias, the pinned pnpm. */
const workspace = (packageManager: string) => ({
  "package.json": JSON.stringify({
    name: "root",
    private: true,
    packageManager,
    devDependencies: { typescript: "~5.5.4", lib3: "npm:lib@~3.24.0", core: "workspace:*" },
  }),
  "pnpm-workspace.yaml": "packages:\n  - packages/*\ncatalog:\n  react: ^19.0.0\n",
  "packages/core/package.json": JSON.stringify({ name: "core", version: "4.0.0" }),
  "packages/docs/package.json": JSON.stringify({
    name: "docs",
    dependencies: { react: "catalog:" },
    devDependencies: { typescript: "^5.8.2" },
  }),
  "packages/it/package.json": JSON.stringify({
    name: "it",
    dependencies: { react: "catalog:" },
    devDependencies: { typescript: "^5.8.2", core: "workspace:*", lib3: "npm:lib@^3.0.0" },
  }),
  "pnpm-lock.yaml": [
    "lockfileVersion: '9.0'",
    "importers:",
    "  .:",
    "    devDependencies:",
    "      core:",
    "        specifier: workspace:*",
    "        version: link:packages/core",
    "      lib3:",
    "        specifier: npm:lib@~3.24.0",
    "        version: lib@3.24.3",
    "      typescript:",
    "        specifier: ~5.5.4",
    "        version: 5.5.4",
    "  packages/core: {}",
    "  packages/docs:",
    "    devDependencies:",
    "      typescript:",
    "        specifier: ^5.8.2",
    "        version: 5.8.2",
    "  packages/it:",
    "    devDependencies:",
    "      core:",
    "        specifier: workspace:*",
    "        version: link:../core",
    "      lib3:",
    "        specifier: npm:lib@^3.0.0",
    "        version: lib@3.24.3",
    "      typescript:",
    "        specifier: ^5.8.2",
    "        version: 5.9.2",
    "",
  ].join("\n"),
});
const workspaceRegistry = () =>
  memoryRegistry([
    packument("typescript", ["5.5.4", "5.8.2", "5.9.2", "5.9.3"]),
    packument("lib", ["3.24.3", "3.24.4", "4.0.0"]),
    packument("pnpm", ["10.12.1", "10.34.8"]),
  ]);

describe("a pnpm workspace", () => {
  it("gives every workspace its own from version, updates aliases and the packageManager field", async () => {
    const { plan, project } = await planOf(workspace("pnpm@10.12.1"), workspaceRegistry());
    const updates = plan.groups.flatMap((g) => g.updates);
    const ts = updates.find((u) => u.name === "typescript") as Update;
    expect(ts.locations.map((l) => [l.manifest, l.from, l.newSpec])).toEqual([
      ["package.json", "5.5.4", "~5.9.3"],
      ["packages/docs/package.json", "5.8.2", "^5.9.3"],
      ["packages/it/package.json", "5.9.2", "^5.9.3"],
    ]);
    expect([ts.from, ts.type, fromVersions(ts)]).toEqual(["5.5.4", "minor", "5.5.4, 5.8.2, 5.9.2"]);
    const alias = updates.find((u) => u.name === "lib3") as Update;
    expect([alias.package, alias.from, alias.to]).toEqual(["lib", "3.24.3", "3.24.4"]);
    expect(alias.locations.map((l) => l.newSpec)).toEqual(["npm:lib@~3.24.4", "npm:lib@^3.24.4"]);
    const pnpm = updates.find((u) => u.name === "pnpm") as Update;
    expect(pnpm.locations).toEqual([
      {
        manifest: "package.json",
        section: "packageManager",
        spec: "pnpm@10.12.1",
        newSpec: "pnpm@10.34.8",
        from: "10.12.1",
      },
    ]);
    // An alias named for its major stays on it: lib 4 would be another alias.
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`)).toContain(
      "lib3: newer major not proposed: 4.0.0: the alias lib3 is named for major 3; add another alias for the new one",
    );
    expect(plan.internal).toBe(2);
    // The bump writes the alias and the field as a maintainer would.
    const rootEdits = manifestEdits(updates).get("package.json") ?? [];
    const rootText = project.manifests[0]?.text ?? "";
    expect(JSON.parse(editManifest(rootText, rootEdits))).toMatchObject({
      packageManager: "pnpm@10.34.8",
      devDependencies: { typescript: "~5.9.3", lib3: "npm:lib@~3.24.4", core: "workspace:*" },
    });

    const out = text(plan);
    expect(out).toContain(
      "from 5.5.4 in package.json; 5.8.2 in packages/docs/package.json; 5.9.2 in packages/it/package.json",
    );
    expect(out).toMatch(/lib3 \(npm:lib\) +3\.24\.3 -> 3\.24\.4/);
    // The catalog's one entry, not its two users: react is looked up once, in pnpm-workspace.yaml.
    expect(plan.skipped.filter((s) => s.name === "react")).toEqual([
      { name: "react", manifest: "pnpm-workspace.yaml", reason: expect.stringContaining("react") },
    ]);
    expect(out).toContain(
      "2 dependencies are on this workspace's own packages (linked by pnpm, not bumped).",
    );
    expect(out).not.toContain("Waiting");
  });

  it("shows the per-workspace table in the group's pull request when versions differ", async () => {
    const { plan } = await planOf(workspace("pnpm@10.12.1"), workspaceRegistry());
    const group = plan.groups[0] as UpdateGroup;
    const body = renderDepsPullRequestBody(greenResult(group), { now: NOW });
    expect(body).toContain("| `typescript` | `5.5.4, 5.8.2, 5.9.2` → `5.9.3` |");
    expect(body).toContain(
      [
        "#### Per workspace",
        "",
        "| Package | Change | Workspaces |",
        "| --- | --- | --- |",
        "| `typescript` | `5.5.4` → `5.9.3` | `package.json` |",
        "| `typescript` | `5.8.2` → `5.9.3` | `packages/docs/package.json` |",
        "| `typescript` | `5.9.2` → `5.9.3` | `packages/it/package.json` |",
      ].join("\n"),
    );
  });

  it("names at most three package.json files per version, in the plan and in the pull request", async () => {
    // TanStack router: vite-plugin-solid 2.11.11 in 88 package.json files, 2.11.10 in 6.
    const on = (from: string, count: number, folder: string) =>
      Array.from({ length: count }, (_, i) => ({
        manifest: `${folder}/app-${i}/package.json`,
        section: "devDependencies" as const,
        spec: `^${from}`,
        newSpec: "^2.11.17",
        from,
      }));
    const update: Update = {
      name: "vite-plugin-solid",
      from: "2.11.10",
      to: "2.11.17",
      type: "patch",
      locations: [...on("2.11.11", 88, "e2e"), ...on("2.11.10", 6, "packages")],
      links: {},
      newInstallScripts: [],
      passedOver: [],
    };
    const group: UpdateGroup = {
      slug: "minor-and-patch",
      name: "minor and patch",
      single: false,
      updates: [update],
    };
    const body = renderDepsPullRequestBody(greenResult(group), { now: NOW });
    expect(body).toContain(
      "| `vite-plugin-solid` | `2.11.11` → `2.11.17` | `e2e/app-0/package.json`, `e2e/app-1/package.json` and 86 more |",
    );
    expect(body).toContain(
      "| `vite-plugin-solid` | `2.11.10` → `2.11.17` | `packages/app-0/package.json`, `packages/app-1/package.json` and 4 more |",
    );
    expect(body).not.toContain("e2e/app-2/");
    expect(body).toContain("### Verification");
    const { plan } = await planOf(workspace("pnpm@10.12.1"), workspaceRegistry());
    expect(text({ ...plan, groups: [group] })).toContain(
      "from 2.11.11 in e2e/app-0/package.json, e2e/app-1/package.json and 86 more; 2.11.10 in packages/app-0/package.json, packages/app-1/package.json and 4 more",
    );
  });

  it("lists a packageManager with corepack's hash when the registry gives nothing to compute it from", async () => {
    const { plan } = await planOf(
      workspace("pnpm@10.12.1+sha512.abcdef0123456789"),
      workspaceRegistry(),
    );
    expect(plan.groups.flatMap((g) => g.updates.map((u) => u.name))).not.toContain("pnpm");
    expect(plan.skipped.find((s) => s.name === "pnpm")?.reason).toBe(
      "packageManager field: 10.12.1 -> 10.34.8 (minor) listed, not proposed: corepack's hash for it (the field has +sha512.abcd…) could not be computed from the registry: run `corepack use pnpm@10.34.8`",
    );
  });
});

/**
 * A package on two majors across workspaces, as astro's root vitest 4 beside
 * an example on 5: the example's update inside its major breaks a peer range
 * and is left out, so the root's major has nothing to wait for.
 */
const twoMajors = {
  "package.json": JSON.stringify({
    name: "root",
    private: true,
    workspaces: ["examples/*"],
    devDependencies: { lib: "^1.0.0", plugin: "^1.0.0" },
  }),
  "examples/next/package.json": JSON.stringify({
    name: "next",
    private: true,
    dependencies: { lib: "^2.0.0" },
  }),
  "package-lock.json": JSON.stringify({
    lockfileVersion: 3,
    packages: {
      "": { name: "root", workspaces: ["examples/*"] },
      "examples/next": { name: "next", dependencies: { lib: "^2.0.0" } },
      "examples/next/node_modules/lib": { version: "2.0.0" },
      "node_modules/lib": { version: "1.0.0" },
      "node_modules/next": { resolved: "examples/next", link: true },
      "node_modules/plugin": { version: "1.0.0" },
    },
  }),
};

describe("a major beside its package's update inside a major", () => {
  it("proposes the major when the peer check leaves out the update it would wait for", async () => {
    const { plan } = await planOf(
      twoMajors,
      memoryRegistry([
        packument("lib", ["1.0.0", "2.0.0", "2.1.0", "3.0.0"]),
        packument("plugin", { "1.0.0": { peers: { lib: "^1.0.0 || ~2.0.0 || ^3.0.0" } } }),
      ]),
    );
    expect(moves(plan)).toEqual(["lib 1.0.0, 2.0.0->3.0.0"]);
    const said = plan.skipped.map((s) => `${s.name} (${s.manifest}): ${s.reason}`);
    expect(said).toEqual([
      expect.stringMatching(
        /^lib \(examples\/next\/package\.json\): 2\.0\.0 -> 2\.1\.0 is outside the peer range "\^1\.0\.0 \|\| ~2\.0\.0 \|\| \^3\.0\.0" that plugin 1\.0\.0 declares/,
      ),
    ]);
    expect(text(plan)).not.toContain("waits until");
  });

  it("still waits for an update inside the major that the plan proposes", async () => {
    const { plan } = await planOf(
      twoMajors,
      memoryRegistry([
        packument("lib", ["1.0.0", "2.0.0", "2.1.0", "3.0.0"]),
        packument("plugin", { "1.0.0": { peers: { lib: "*" } } }),
      ]),
    );
    expect(moves(plan)).toEqual(["lib 2.0.0->2.1.0"]);
    // The update it waits for is in another package.json: the plan says which.
    expect(plan.skipped.map((s) => `${s.manifest}: ${s.reason}`)).toEqual([
      "package.json: 1.0.0 -> 3.0.0 (major) waits until the update to 2.1.0 in examples/next/package.json is merged: one pull request per package at a time",
    ]);
    // The rule a waiting update follows is said once, above the packages it holds back.
    const out = text(plan);
    expect(out).toContain(
      "Waiting, one pull request per package at a time:\n  lib (package.json): 1.0.0 -> 3.0.0 (major) waits until the update to 2.1.0 in examples/next/package.json is merged\n",
    );
    expect(out.match(/one pull request per package/g)).toHaveLength(1);
  });

  it("waits for the update in its own package.json when there is one", async () => {
    // prisma's playground: vite 6.4.3 -> 6.4.6 there, the catalog's 8.1.4 -> 8.4.1 elsewhere.
    const { plan } = await planOf(
      twoMajors,
      memoryRegistry([
        packument("lib", ["1.0.0", "1.0.5", "2.0.0", "2.1.0", "3.0.0"]),
        packument("plugin", { "1.0.0": { peers: { lib: "*" } } }),
      ]),
    );
    expect(moves(plan).sort()).toEqual(["lib 1.0.0->1.0.5", "lib 2.0.0->2.1.0"]);
    expect(plan.skipped.map((s) => `${s.manifest}: ${s.reason}`)).toEqual([
      "package.json: 1.0.0 -> 3.0.0 (major) waits until the update to 1.0.5 is merged: one pull request per package at a time",
    ]);
  });
});

describe("a family whose members are released apart", () => {
  // TanStack router's trpc example: @trpc/tanstack-react-query's newest, 11.22.1,
  // asks for @trpc/client and @trpc/server "11.22.1" exactly, while they are at
  // 11.25.2 (and the client asks for its server exactly too). Each bump broke
  // another's exact range and the plan left all three out.
  const trpc = (extra: Record<string, string> = {}) => ({
    "package.json": JSON.stringify({
      name: "example",
      private: true,
      packageManager: "pnpm@10.12.1",
      dependencies: { client: "^11.4.3", server: "^11.4.3", adapter: "^11.4.3", ...extra },
    }),
    "pnpm-lock.yaml": [
      "lockfileVersion: '9.0'",
      "importers:",
      "  .:",
      "    dependencies:",
      ...["adapter", "client", "server"].flatMap((name) => [
        `      ${name}:`,
        "        specifier: ^11.4.3",
        "        version: 11.4.3",
      ]),
      ...Object.entries(extra).flatMap(([name, spec]) => [
        `      ${name}:`,
        `        specifier: ${spec}`,
        `        version: ${spec.replace(/^\^/, "")}`,
      ]),
      "",
    ].join("\n"),
  });
  const exact = (version: string, names: string[]) =>
    Object.fromEntries(names.map((n) => [n, version]));
  const members = [
    packument("server", ["11.4.3", "11.22.1", "11.25.2"]),
    packument("client", {
      "11.4.3": { peers: exact("11.4.3", ["server"]) },
      "11.22.1": { peers: exact("11.22.1", ["server"]) },
      "11.25.2": { peers: exact("11.25.2", ["server"]) },
    }),
    packument("adapter", {
      "11.4.3": { peers: exact("11.4.3", ["client", "server"]) },
      "11.22.1": { peers: exact("11.22.1", ["client", "server"]) },
    }),
  ];
  const family = memoryRegistry(members);

  it("moves them together to the newest release all of them support, and says why not further", async () => {
    const { plan } = await planOf(
      trpc({ zeta: "^1.0.0" }),
      memoryRegistry([...members, packument("zeta", ["1.0.0", "1.1.0"])]),
    );
    // In the plan's order (by name), the capped ones where they were first weighed.
    expect(moves(plan)).toEqual([
      "adapter 11.4.3->11.22.1",
      "client 11.4.3->11.22.1",
      "server 11.4.3->11.22.1",
      "zeta 1.0.0->1.1.0",
    ]);
    expect(plan.groups).toHaveLength(1);
    expect(plan.skipped.filter((s) => s.name !== "pnpm")).toEqual([]);
    const out = text(plan);
    expect(out).toContain('passed over 11.25.2: adapter 11.22.1 asks for client "11.22.1"');
    expect(out).toContain('passed over 11.25.2: adapter 11.22.1 asks for server "11.22.1"');
    // The pull request says it too: a maintainer sees 11.25.2 on the registry.
    const body = renderDepsPullRequestBody(greenResult(plan.groups[0] as UpdateGroup), {
      now: NOW,
    });
    expect(body).toContain(
      [
        "#### Newer releases not taken",
        "",
        '- `client`: passed over 11.25.2: adapter 11.22.1 asks for client "11.22.1"',
        '- `server`: passed over 11.25.2: adapter 11.22.1 asks for server "11.22.1"',
      ].join("\n"),
    );
    expect(body.indexOf("#### Newer releases not taken")).toBeLessThan(
      body.indexOf("### Verification"),
    );
  });

  it("proposes the newest release that takes the installed peer when the newest asks for more", async () => {
    // TanStack query's examples: @vitejs/plugin-react 6 asks for vite 8 beside vite 6; 5.2 takes vite 6.
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "example",
          private: true,
          devDependencies: { plugin: "^4.0.0", vite: "^6.1.0" },
        }),
        "package-lock.json": npmLock({ plugin: "4.0.0", vite: "6.1.0" }),
      },
      memoryRegistry([
        packument("vite", ["6.1.0", "8.0.0"], { latest: "6.1.0" }),
        packument("plugin", {
          "4.0.0": { peers: { vite: "^5.0.0 || ^6.0.0" } },
          "5.2.0": { peers: { vite: "^6.0.0 || ^7.0.0" } },
          "6.3.1": { peers: { vite: "^8.0.0" } },
        }),
      ]),
    );
    expect(moves(plan)).toEqual(["plugin 4.0.0->5.2.0"]);
    expect(text(plan)).toContain(
      'passed over 6.3.1: it asks for vite "^8.0.0", and vite 6.1.0 is installed',
    );
  });

  it("settles a family where one member's newest is a release behind and the others have a newer major", async () => {
    // Effect's root: vitest and @vitest/coverage-v8 at 4.1.12 (each asking for
    // the other exactly), @vitest/web-worker's newest 4.x 4.1.11 asking for
    // vitest "4.1.11", majors beside them that Node or their peers refuse.
    // The first cap (vitest to 4.1.11) was found and lost, and a cap once set
    // was never lowered: the whole family was left out. 4.1.11 takes them all.
    const pin = (version: string, names: string[], node?: string) => ({
      peers: exact(version, names),
      ...(node ? { node } : {}),
    });
    const names = ["vitest", "coverage", "worker"];
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "example",
          private: true,
          packageManager: "pnpm@10.12.1",
          devDependencies: Object.fromEntries(names.map((n) => [n, "^4.1.10"])),
        }),
        "pnpm-lock.yaml": [
          "lockfileVersion: '9.0'",
          "importers:",
          "  .:",
          "    devDependencies:",
          ...names.flatMap((n) => [
            `      ${n}:`,
            "        specifier: ^4.1.10",
            "        version: 4.1.10",
          ]),
          "",
        ].join("\n"),
      },
      memoryRegistry([
        packument("vitest", {
          "4.1.10": pin("4.1.10", ["coverage"]),
          "4.1.11": pin("4.1.11", ["coverage"]),
          "4.1.12": pin("4.1.12", ["coverage"]),
          "5.1.2": pin("5.1.2", ["coverage"], ">=99"),
        }),
        packument("coverage", {
          "4.1.10": pin("4.1.10", ["vitest"]),
          "4.1.11": pin("4.1.11", ["vitest"]),
          "4.1.12": pin("4.1.12", ["vitest"]),
          "5.1.2": pin("5.1.2", ["vitest"]),
        }),
        packument("worker", {
          "4.1.10": pin("4.1.10", ["vitest"]),
          "4.1.11": pin("4.1.11", ["vitest"]),
          "5.1.0": pin("5.1.0", ["vitest"]),
        }),
      ]),
    );
    expect(moves(plan)).toEqual([
      "coverage 4.1.10->4.1.11",
      "vitest 4.1.10->4.1.11",
      "worker 4.1.10->4.1.11",
    ]);
    const out = text(plan);
    expect(out).toContain('passed over 4.1.12: worker 4.1.11 asks for vitest "4.1.11"');
    // Each cap says what it passed over; one a lower cap replaced, without the plan of its round.
    expect(out).toContain(
      [
        'passed over 5.1.2: vitest 4.1.12 asks for coverage "4.1.12"',
        'passed over 4.1.12: vitest 4.1.11 asks for coverage "4.1.11"',
      ].join(`\n${" ".repeat(12)}`),
    );
    expect(out).toContain(
      'passed over 5.1.0: it asks for vitest "5.1.0", and the plan moves vitest to 4.1.11',
    );
  });

  it("keeps a member at its newest when nothing holds it back, as before", async () => {
    // Without the adapter, client and server move to 11.25.2 together.
    const { plan } = await planOf(
      {
        ...trpc(),
        "package.json": JSON.stringify({
          name: "example",
          private: true,
          packageManager: "pnpm@10.12.1",
          dependencies: { client: "^11.4.3", server: "^11.4.3" },
        }),
      },
      family,
    );
    expect(moves(plan).sort()).toEqual(["client 11.4.3->11.25.2", "server 11.4.3->11.25.2"]);
  });
});

describe("a workspace manifest that starts with a byte order mark", () => {
  it("is read as npm and pnpm read it, and bumped with the mark kept", async () => {
    // vite's playground keeps one (playground/resolve/utf8-bom-package): the whole plan stopped at it.
    const bom = "\uFEFF";
    const { plan, project } = await planOf(
      {
        ...twoMajors,
        "examples/next/package.json": `${bom}${twoMajors["examples/next/package.json"]}`,
      },
      memoryRegistry([
        packument("lib", ["1.0.0", "2.0.0", "2.1.0"]),
        packument("plugin", { "1.0.0": { peers: { lib: "*" } } }),
      ]),
    );
    expect(moves(plan)).toEqual(["lib 2.0.0->2.1.0"]);
    const next = project.manifests.find((m) => m.path === "examples/next/package.json");
    const edited = editManifest(
      next?.text ?? "",
      manifestEdits(plan.groups.flatMap((g) => g.updates)).get("examples/next/package.json") ?? [],
    );
    expect(edited.startsWith(bom)).toBe(true);
    expect(JSON.parse(edited.slice(1)).dependencies).toEqual({ lib: "^2.1.0" });
  });
});

describe("aliases named for a major", () => {
  it("reads the major an alias's name states, and only from its name", () => {
    const named = [
      "react-18",
      "@jest/react-is-18",
      "prettier-v2",
      "prettier-2",
      "@types/prettier-v2",
      "lib3",
      "@babel-8/core",
      "vue_3",
      "@babel/core-7.12",
      "lib-v2.1",
      "react",
      "@scope/pkg",
    ].map((name) => [name, aliasNamedLine(name)]);
    expect(named).toEqual([
      ["react-18", { major: 18 }],
      ["@jest/react-is-18", { major: 18 }],
      ["prettier-v2", { major: 2 }],
      ["prettier-2", { major: 2 }],
      ["@types/prettier-v2", { major: 2 }],
      ["lib3", { major: 3 }],
      ["@babel-8/core", { major: 8 }],
      ["vue_3", { major: 3 }],
      ["@babel/core-7.12", { major: 7, minor: 12 }],
      ["lib-v2.1", { major: 2, minor: 1 }],
      ["react", undefined],
      ["@scope/pkg", undefined],
    ]);
    // Major and minor run together (TanStack router's typescript56 to typescript59),
    // read so by the release installed, and only when the major alone is not it.
    expect(
      [
        ["typescript56", "5.6.3"],
        ["typescript5", "5.9.3"],
        ["react18", "18.3.1"],
        ["lib10", "1.0.4"],
        ["lib10", "10.2.0"],
        ["typescript56", "7.0.2"],
      ].map(([name, current]) => aliasNamedLine(name ?? "", current)),
    ).toEqual([
      { major: 5, minor: 6 },
      { major: 5 },
      { major: 18 },
      { major: 1, minor: 0 },
      { major: 10 },
      { major: 56 },
    ]);
  });

  it("keeps TanStack router's typescript56 to typescript59 each on its minor", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "router",
          private: true,
          devDependencies: {
            typescript: "^5.8.3",
            typescript56: "npm:typescript@5.6",
            typescript59: "npm:typescript@5.9",
          },
        }),
        "package-lock.json": npmLock({
          typescript: "5.8.3",
          typescript56: "5.6.2",
          typescript59: "5.9.3",
        }),
      },
      memoryRegistry([packument("typescript", ["5.6.2", "5.6.3", "5.8.3", "5.9.3", "7.0.2"])]),
    );
    expect(moves(plan).sort()).toEqual(["typescript 5.8.3->5.9.3", "typescript56 5.6.2->5.6.3"]);
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`).sort()).toEqual([
      "typescript56: newer major not proposed: 7.0.2: the alias typescript56 is named for 5.6; add another alias for the new one",
      "typescript56: newer minor not proposed: 5.9.3: the alias typescript56 is named for 5.6; add another alias for the new one",
      "typescript59: newer major not proposed: 7.0.2: the alias typescript59 is named for 5.9; add another alias for the new one",
      "typescript: 5.8.3 -> 7.0.2 (major) waits until the update to 5.9.3 is merged: one pull request per package at a time",
    ]);
  });

  it("keeps an alias named for an older release on the line it has (drizzle's drizzle-orm-old)", async () => {
    expect(
      [
        ["drizzle-orm-old", "0.27.2"],
        ["react_legacy", "17.0.2"],
        ["@scope/lib-prev", "2.1.0"],
        ["lib-previous", "3.0.0"],
        ["bold", "1.0.0"],
        ["lib-old", undefined],
      ].map(([name, current]) => aliasNamedLine(name ?? "", current)),
    ).toEqual([
      { major: 0, minor: 27, older: true },
      { major: 17, older: true },
      { major: 2, older: true },
      { major: 3, older: true },
      undefined,
      undefined,
    ]);
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "orm-root",
          private: true,
          devDependencies: {
            orm: "^0.45.3",
            "orm-old": "npm:orm@^0.27.2",
            "util-legacy": "npm:util@^1.2.0",
          },
        }),
        "package-lock.json": npmLock({
          orm: "0.45.3",
          "orm-old": "0.27.2",
          "util-legacy": "1.2.0",
        }),
      },
      memoryRegistry([
        packument("orm", ["0.27.2", "0.27.3", "0.28.0", "0.45.3", "0.45.4"]),
        packument("util", ["1.2.0", "1.3.0", "2.0.0"]),
      ]),
    );
    expect(moves(plan).sort()).toEqual([
      "orm 0.45.3->0.45.4",
      "orm-old 0.27.2->0.27.3",
      "util-legacy 1.2.0->1.3.0",
    ]);
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`).sort()).toEqual([
      "orm-old: newer major not proposed: 0.45.4: the alias orm-old is named for an older release; it stays on 0.27",
      "util-legacy: newer major not proposed: 2.0.0: the alias util-legacy is named for an older release; it stays on major 1",
    ]);
  });

  it("keeps jest's react-17 and react-18 on their majors, and bumps them inside it", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "pretty",
          private: true,
          devDependencies: {
            "react-17": "npm:react@^17.0.2",
            "react-18": "npm:react@^18.3.0",
            // A name whose number is not the installed major is no such alias.
            base64: "npm:js-base64@^3.7.0",
            // babel's preset-env tests on @babel/core 7.12: patches only.
            "core-7.12": "npm:core@7.12.9",
            "core-7.11": "npm:core@7.11.0",
          },
        }),
        "package-lock.json": npmLock({
          "react-17": "17.0.2",
          "react-18": "18.3.0",
          base64: "3.7.0",
          "core-7.12": "7.12.9",
          "core-7.11": "7.11.0",
        }),
      },
      memoryRegistry([
        packument("react", ["17.0.2", "18.3.0", "18.3.1", "19.3.1"]),
        packument("js-base64", ["3.7.0", "4.0.0"]),
        packument("core", ["7.11.0", "7.12.9", "7.12.10", "7.29.16", "8.1.4"]),
      ]),
    );
    expect(moves(plan).sort()).toEqual([
      "base64 3.7.0->4.0.0",
      "core-7.12 7.12.9->7.12.10",
      "react-18 18.3.0->18.3.1",
    ]);
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`).sort()).toEqual([
      "core-7.11: newer major not proposed: 8.1.4: the alias core-7.11 is named for 7.11; add another alias for the new one",
      "core-7.11: newer minor not proposed: 7.29.16: the alias core-7.11 is named for 7.11; add another alias for the new one",
      "core-7.12: newer major not proposed: 8.1.4: the alias core-7.12 is named for 7.12; add another alias for the new one",
      "core-7.12: newer minor not proposed: 7.29.16: the alias core-7.12 is named for 7.12; add another alias for the new one",
      "react-17: newer major not proposed: 19.3.1: the alias react-17 is named for major 17; add another alias for the new one",
      "react-18: newer major not proposed: 19.3.1: the alias react-18 is named for major 18; add another alias for the new one",
    ]);
  });
});

describe("folders named for a major", () => {
  it("reads the major a package.json's folder states for a package, and only for that package", () => {
    expect(
      [
        ["test/runtime-integration/webpack-3/package.json", "webpack"],
        ["integrations/react-webpack-4/package.json", "webpack"],
        ["integration/helpers/vite-7-template/package.json", "vite"],
        ["fixtures/flat-config-types-@types__eslint-v8/package.json", "@types/eslint"],
        ["examples/prisma-8-demo/package.json", "prisma"],
        ["integrations/react-webpack-4/package.json", "react"],
        ["examples/vitest-demo/package.json", "vite"],
        ["package.json", "webpack"],
      ].map(([manifest, name]) => folderNamedMajor(manifest as string, name as string)),
    ).toEqual([3, 4, 7, 8, 8, undefined, undefined, undefined]);
  });

  it("keeps babel's webpack fixtures on their majors, and bumps them inside it", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          private: true,
          workspaces: ["fixtures/*"],
          devDependencies: { webpack: "^5.106.0" },
        }),
        "fixtures/webpack-4/package.json": JSON.stringify({
          name: "webpack-4-fixture",
          devDependencies: { webpack: "^4.46.0" },
        }),
        "package-lock.json": JSON.stringify({
          lockfileVersion: 3,
          packages: {
            "": { devDependencies: { webpack: "^5.106.0" } },
            "node_modules/webpack": { version: "5.106.0" },
            "fixtures/webpack-4": { devDependencies: { webpack: "^4.46.0" } },
            "fixtures/webpack-4/node_modules/webpack": { version: "4.46.0" },
            "node_modules/webpack-4-fixture": { resolved: "fixtures/webpack-4", link: true },
          },
        }),
      },
      memoryRegistry([packument("webpack", ["4.46.0", "4.47.0", "5.106.0", "5.113.0"])]),
    );
    expect(moves(plan).sort()).toEqual(["webpack 4.46.0->4.47.0", "webpack 5.106.0->5.113.0"]);
    expect(plan.skipped.map((s) => `${s.manifest}: ${s.reason}`)).toEqual([
      "fixtures/webpack-4/package.json: newer major not proposed: 5.113.0: fixtures/webpack-4 is named for major 4; add another folder for the new one",
    ]);
  });
});

describe("majors released together from one repository", () => {
  it("are planned as one pull request named after the repository, from their packuments' times", async () => {
    const fromFamily = (doc: ReturnType<typeof packument>) => ({
      ...doc,
      repository: { type: "git", url: "git+https://github.com/acme/family.git" },
    });
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "app",
          private: true,
          dependencies: { "fam-core": "^1.0.0", "fam-cli": "^1.0.0", "fam-old": "^1.0.0" },
        }),
        "package-lock.json": npmLock({
          "fam-core": "1.0.0",
          "fam-cli": "1.0.0",
          "fam-old": "1.0.0",
        }),
      },
      memoryRegistry([
        // A beta long before is not the line's release; the 2.0.0s came out two days apart.
        fromFamily(
          packument("fam-core", {
            "1.0.0": { daysAgo: 900 },
            "2.0.0-beta.1": { daysAgo: 400 },
            "2.0.0": { daysAgo: 40 },
          }),
        ),
        fromFamily(
          packument("fam-cli", {
            "1.0.0": { daysAgo: 900 },
            "2.0.0": { daysAgo: 38 },
            "2.0.1": { daysAgo: 20 },
          }),
        ),
        // Its own 2.0.0, a year before the others: no part of their release.
        fromFamily(packument("fam-old", { "1.0.0": { daysAgo: 900 }, "2.0.0": { daysAgo: 400 } })),
      ]),
    );
    expect(
      plan.groups.map((g) => [g.slug, g.updates.map((u) => `${u.name} ${u.to}`).sort()]),
    ).toEqual([
      ["acme-family-2", ["fam-cli 2.0.1", "fam-core 2.0.0"]],
      ["fam-old-2", ["fam-old 2.0.0"]],
    ]);
  });
});

describe("a package on three lines whose moves all break a peer range", () => {
  it("says each left-out move once", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          private: true,
          workspaces: ["examples/*"],
          devDependencies: { lib: "^1.0.0", plugin: "^1.0.0" },
        }),
        "examples/a/package.json": JSON.stringify({ name: "a", dependencies: { lib: "^2.0.0" } }),
        "examples/b/package.json": JSON.stringify({ name: "b", dependencies: { lib: "^4.0.0" } }),
        "package-lock.json": JSON.stringify({
          lockfileVersion: 3,
          packages: {
            "": { name: "root", workspaces: ["examples/*"] },
            "examples/a": { name: "a", dependencies: { lib: "^2.0.0" } },
            "examples/a/node_modules/lib": { version: "2.0.0" },
            "examples/b": { name: "b", dependencies: { lib: "^4.0.0" } },
            "examples/b/node_modules/lib": { version: "4.0.0" },
            "node_modules/lib": { version: "1.0.0" },
            "node_modules/a": { resolved: "examples/a", link: true },
            "node_modules/b": { resolved: "examples/b", link: true },
            "node_modules/plugin": { version: "1.0.0" },
          },
        }),
      },
      memoryRegistry([
        packument("lib", ["1.0.0", "2.0.0", "2.1.0", "4.0.0", "4.1.0"]),
        packument("plugin", { "1.0.0": { peers: { lib: "^1.0.0 || ~2.0.0 || ~4.0.0" } } }),
      ]),
    );
    expect(moves(plan)).toEqual([]);
    const said = plan.skipped.map((s) => `${s.manifest}: ${s.reason.split(" is outside")[0]}`);
    // Each from the version its manifest has: the major moves the root and examples/a.
    expect(said.sort()).toEqual([
      "examples/a/package.json: 2.0.0 -> 2.1.0",
      "examples/a/package.json: 2.0.0 -> 4.1.0",
      "examples/b/package.json: 4.0.0 -> 4.1.0",
      "package.json: 1.0.0 -> 4.1.0",
    ]);
  });
});
