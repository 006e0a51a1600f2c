import { describe, expect, it } from "vitest";
import { renderDepsPlan } from "../../../src/deps/plan/render-plan.js";
import { memoryRegistry, npmLock, packument, projectPlanner } from "../memory-registry.js";

/**
 * Plan rules that need no real registry: a registry client in memory
 * answers packuments and advisories, and the projects are files on disk.
 */

const planOf = projectPlanner("pw-plan-rules-");

const summary = (groups: Array<{ slug: string; updates: Array<{ name: string; to: string }> }>) =>
  groups.map((g) => [g.slug, g.updates.map((u) => `${u.name}@${u.to}`)]);

describe("the plan", () => {
  it("says which updates wait for a security fix to the same package", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({ name: "app", dependencies: { lib: "^1.0.0" } }),
        "package-lock.json": npmLock({ lib: "1.0.0" }),
      },
      memoryRegistry([packument("lib", ["1.0.0", "1.0.1", "1.5.0", "2.0.0"])], {
        lib: [{ id: 7, title: "ReDoS", severity: "high", vulnerable_versions: "<1.0.1" }],
      }),
    );
    expect(summary(plan.groups)).toEqual([["security-lib", ["lib@1.0.1"]]]);
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`)).toEqual(
      expect.arrayContaining([
        "lib: 1.0.0 -> 1.5.0 (minor) waits until the security fix to 1.0.1 is merged: one pull request per package at a time",
        "lib: 1.0.0 -> 2.0.0 (major) waits until the security fix to 1.0.1 is merged: one pull request per package at a time",
      ]),
    );
  });

  it("warns of the install scripts a security fix adds, and of those allowScripts leaves unreviewed", async () => {
    const withHook = (doc: ReturnType<typeof packument>, version: string) => {
      const entry = doc.versions[version];
      if (entry) entry.scripts = { postinstall: "node hook.js" };
      return doc;
    };
    const advisory = (name: string) => [
      { id: 8, title: `${name} leak`, severity: "high" as const, vulnerable_versions: "<1.0.1" },
    ];
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "app",
          dependencies: { lib: "^1.0.0", parent: "^1.0.0" },
          allowScripts: { "lib@1.0.0": true, "leaf@1.0.0": true },
        }),
        // leaf is only in the lockfile, under parent.
        "package-lock.json": JSON.stringify({
          lockfileVersion: 3,
          packages: {
            "": { dependencies: { lib: "^1.0.0", parent: "^1.0.0" } },
            "node_modules/lib": { version: "1.0.0" },
            "node_modules/parent": { version: "1.0.0", dependencies: { leaf: "^1.0.0" } },
            "node_modules/leaf": { version: "1.0.0" },
          },
        }),
      },
      memoryRegistry(
        [
          withHook(packument("lib", ["1.0.0", "1.0.1"]), "1.0.1"),
          packument("parent", ["1.0.0"]),
          withHook(packument("leaf", ["1.0.0", "1.0.1"]), "1.0.1"),
        ],
        { lib: advisory("lib"), leaf: advisory("leaf") },
      ),
    );
    const updates = plan.groups.flatMap((g) => g.updates);
    expect(updates.map((u) => `${u.name}@${u.to}`).sort()).toEqual(["leaf@1.0.1", "lib@1.0.1"]);
    for (const update of updates) {
      expect(update.newInstallScripts).toEqual(["postinstall"]);
      expect(update.unapprovedScripts).toEqual({
        tool: "npm",
        scripts: ["postinstall"],
        otherVersions: [`${update.name}@1.0.0`],
      });
    }
  });

  it("notes the builds pnpm's allowBuilds leaves unreviewed, and not those it skipped before the bump", async () => {
    const hooked = (name: string, versions: string[]) => {
      const doc = packument(name, versions);
      for (const entry of Object.values(doc.versions))
        entry.scripts = { postinstall: "node hook.js" };
      return doc;
    };
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "app",
          packageManager: "pnpm@10.34.8",
          dependencies: { pinned: "1.0.0", skipped: "1.0.0", approved: "1.0.0" },
        }),
        "pnpm-workspace.yaml": "allowBuilds:\n  pinned@1.0.0: true\n  approved: true\n",
        "pnpm-lock.yaml": [
          "lockfileVersion: '9.0'",
          "importers:",
          "  .:",
          "    dependencies:",
          ...["pinned", "skipped", "approved"].flatMap((name) => [
            `      ${name}:`,
            "        specifier: 1.0.0",
            "        version: 1.0.0",
          ]),
        ].join("\n"),
      },
      memoryRegistry([
        hooked("pinned", ["1.0.0", "1.0.1"]),
        hooked("skipped", ["1.0.0", "1.0.1"]),
        hooked("approved", ["1.0.0", "1.0.1"]),
      ]),
    );
    const updates = plan.groups.flatMap((g) => g.updates);
    expect(updates.map((u) => u.name).sort()).toEqual(["approved", "pinned", "skipped"]);
    expect(Object.fromEntries(updates.map((u) => [u.name, u.unapprovedScripts ?? null]))).toEqual({
      pinned: { tool: "pnpm", scripts: ["postinstall"], otherVersions: ["pinned@1.0.0"] },
      skipped: null,
      approved: null,
    });
    expect(renderDepsPlan(plan, { now: Date.now(), branchPrefix: "agent/" })).toContain(
      "! postinstall not approved in allowBuilds (it approves pinned@1.0.0)",
    );
  });

  it("reads pnpm's workspaces from pnpm-workspace.yaml and bumps a catalog's entry once, in the catalog", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({ name: "root", packageManager: "pnpm@10.34.8" }),
        "pnpm-workspace.yaml": [
          "packages:",
          "  - 'packages/*'",
          "catalog:",
          "  lib: ^1.0.0",
          "catalogs:",
          "  legacy:",
          "    lib: ~0.9.0",
          "    gone: ^1.0.0",
          "",
        ].join("\n"),
        "pnpm-lock.yaml": [
          "lockfileVersion: '9.0'",
          "importers:",
          "  .: {}",
          "  packages/a:",
          "    dependencies:",
          "      lib:",
          "        specifier: ^1.0.0",
          "        version: 1.0.0",
          "  packages/b:",
          "    dependencies:",
          "      lib:",
          "        specifier: 'catalog:'",
          "        version: 1.0.0",
          "  packages/c:",
          "    dependencies:",
          "      lib:",
          "        specifier: 'catalog:'",
          "        version: 1.0.0",
          "  packages/d:",
          "    devDependencies:",
          "      lib:",
          "        specifier: 'catalog:legacy'",
          "        version: 0.9.1",
          "",
        ].join("\n"),
        "packages/a/package.json": JSON.stringify({ name: "a", dependencies: { lib: "^1.0.0" } }),
        "packages/b/package.json": JSON.stringify({ name: "b", dependencies: { lib: "catalog:" } }),
        "packages/c/package.json": JSON.stringify({ name: "c", dependencies: { lib: "catalog:" } }),
        "packages/d/package.json": JSON.stringify({
          name: "d",
          devDependencies: { lib: "catalog:legacy", other: "catalog:nope" },
        }),
      },
      memoryRegistry([packument("lib", ["0.9.1", "0.9.4", "1.0.0", "1.5.0"])]),
    );
    expect(plan.manifests).toEqual([
      "package.json",
      "packages/a/package.json",
      "packages/b/package.json",
      "packages/c/package.json",
      "packages/d/package.json",
      "pnpm-workspace.yaml",
    ]);
    const locations = plan.groups.flatMap((g) =>
      g.updates.map((u) => [u.name, u.from, u.to, u.locations]),
    );
    expect(locations).toContainEqual([
      "lib",
      "1.0.0",
      "1.5.0",
      [
        {
          manifest: "packages/a/package.json",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^1.5.0",
          from: "1.0.0",
        },
        // b and c share the catalog's one entry.
        {
          manifest: "pnpm-workspace.yaml",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^1.5.0",
          from: "1.0.0",
          catalog: "default",
          usedBy: "packages/b/package.json",
        },
      ],
    ]);
    expect(locations).toContainEqual([
      "lib",
      "0.9.1",
      "0.9.4",
      [
        {
          manifest: "pnpm-workspace.yaml",
          section: "devDependencies",
          spec: "~0.9.0",
          newSpec: "~0.9.4",
          from: "0.9.1",
          catalog: "legacy",
          usedBy: "packages/d/package.json",
        },
      ],
    ]);
    expect(plan.skipped).toContainEqual({
      name: "other",
      manifest: "packages/d/package.json",
      reason: 'a catalog entry ("catalog:nope") that pnpm-workspace.yaml does not define',
    });
    expect(renderDepsPlan(plan, { now: Date.now(), branchPrefix: "agent/" })).toContain(
      "pnpm-workspace.yaml catalogs.legacy",
    );
  });

  it("leaves out what an override holds, naming it, and bumps a catalog: override's entry in the catalog", async () => {
    const lock = (deps: Record<string, string>) =>
      [
        "lockfileVersion: '9.0'",
        "importers:",
        "  .:",
        "    dependencies:",
        ...Object.entries(deps).flatMap(([name, version]) => [
          `      ${name}:`,
          `        specifier: ^${version}`,
          `        version: ${version}`,
        ]),
        "",
      ].join("\n");
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          packageManager: "pnpm@10.34.8",
          dependencies: {
            pinned: "^1.0.0",
            typed: "^22.1.0",
            viacat: "^1.0.0",
            self: "^1.0.0",
            free: "^1.0.0",
          },
          peerDependencies: { pinned: "^1.0.0" },
        }),
        "pnpm-workspace.yaml": [
          "catalog:",
          "  viacat: ^1.0.0",
          "overrides:",
          "  pinned: 1.0.0",
          "  typed@22: ^22.1.0",
          "  viacat: 'catalog:'",
          "  self: $self",
          "  parent>free: 1.0.0",
          "",
        ].join("\n"),
        "pnpm-lock.yaml": lock({
          pinned: "1.0.0",
          typed: "22.1.0",
          viacat: "1.0.0",
          self: "1.0.0",
          free: "1.0.0",
        }),
      },
      memoryRegistry(
        ["pinned", "viacat", "self", "free"]
          .map((name) => packument(name, ["1.0.0", "1.1.0"]))
          .concat(packument("typed", ["22.1.0", "22.2.0"])),
        // The held package is vulnerable: no bump fixes it, the override must change.
        {
          pinned: [
            {
              id: 9,
              title: "Prototype pollution",
              severity: "high",
              vulnerable_versions: "<1.1.0",
            },
          ],
        },
      ),
    );
    const updates = plan.groups.flatMap((g) =>
      g.updates.map((u) => `${u.name}@${u.to} ${u.locations.map((l) => l.manifest)}`),
    );
    expect(updates.sort()).toEqual([
      "free@1.1.0 package.json",
      "self@1.1.0 package.json",
      "viacat@1.1.0 pnpm-workspace.yaml",
    ]);
    expect(plan.skipped.filter((s) => s.reason.includes("held by"))).toEqual([
      {
        name: "pinned",
        manifest: "package.json",
        reason:
          '1.0.0 has advisory 9 (high); held by pnpm-workspace.yaml overrides ("pinned": "1.0.0"): the package manager installs "1.0.0" whatever the manifest says; change the override to update it',
      },
      {
        name: "typed",
        manifest: "package.json",
        reason:
          'held by pnpm-workspace.yaml overrides ("typed@22": "^22.1.0"): the package manager installs "^22.1.0" whatever the manifest says; change the override to update it',
      },
    ]);
  });

  it("leaves out a patch whose range the tool would resolve to a minor the config does not take", async () => {
    const registry = () =>
      memoryRegistry([
        packument("caret", ["1.0.0", "1.0.1", "1.1.0"]),
        packument("kept", ["1.0.0", "1.0.1", "1.1.0"]),
        packument("exact", ["1.0.0", "1.0.1", "1.1.0"]),
      ]);
    const config = { update_types: ["patch"] };
    const manifest = (packageManager: string) =>
      JSON.stringify({
        name: "app",
        packageManager,
        dependencies: { caret: "^1.0.0", kept: "1.x", exact: "1.0.0" },
      });
    // A raised floor (^1.0.1) is resolved again by every tool, and npm relocks a
    // kept range (1.x) to the newest it allows: 1.1.0, not the planned 1.0.1.
    const npm = await planOf(
      {
        "package.json": manifest("npm@11.19.1"),
        "package-lock.json": npmLock({ caret: "1.0.0", kept: "1.0.0", exact: "1.0.0" }),
      },
      registry(),
      config,
    );
    expect(summary(npm.plan.groups)).toEqual([["patch", ["exact@1.0.1"]]]);
    const passes =
      "which the plan passes over (minor updates are not enabled (deps.update_types)); a range that stops below it (~ or an exact version) would take 1.0.1";
    expect(npm.plan.skipped.map((s) => `${s.name}: ${s.reason}`)).toEqual([
      `caret: 1.0.0 -> 1.0.1 not proposed: npm would lock 1.1.0 instead, the newest release the new range ^1.0.1 allows, ${passes}`,
      `kept: 1.0.0 -> 1.0.1 not proposed: npm would lock 1.1.0 instead, the newest release the range 1.x allows, ${passes}`,
      "npm: packageManager field: no packument for npm",
    ]);
    // pnpm is given the plan's version for a kept range: that one goes.
    const pnpm = await planOf(
      {
        "package.json": manifest("pnpm@10.34.8"),
        "pnpm-lock.yaml": [
          "lockfileVersion: '9.0'",
          "importers:",
          "  .:",
          "    dependencies:",
          "      caret:",
          "        specifier: ^1.0.0",
          "        version: 1.0.0",
          "      kept:",
          "        specifier: 1.x",
          "        version: 1.0.0",
          "      exact:",
          "        specifier: 1.0.0",
          "        version: 1.0.0",
          "",
        ].join("\n"),
      },
      registry(),
      config,
    );
    expect(summary(pnpm.plan.groups)).toEqual([
      ["patch", ["exact@1.0.1"]],
      ["lockfile-only", ["kept@1.0.1"]],
    ]);
  });

  it("reads yarn 4's catalogs from .yarnrc.yml and bun's from package.json", async () => {
    const { plan } = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          packageManager: "yarn@4.18.1",
          dependencies: { lib: "catalog:", other: "catalog:nope" },
        }),
        ".yarnrc.yml": "nodeLinker: node-modules\ncatalog:\n  lib: ^1.0.0\n",
        // As yarn 4 locks a catalog's range: under the range it stands for.
        "yarn.lock": [
          "__metadata:",
          "  version: 8",
          "",
          '"lib@npm:^1.0.0":',
          "  version: 1.0.0",
          '  resolution: "lib@npm:1.0.0"',
          "  languageName: node",
          "  linkType: hard",
          "",
        ].join("\n"),
      },
      memoryRegistry([packument("lib", ["1.0.0", "1.5.0"])]),
    );
    expect(plan.manifests).toEqual(["package.json", ".yarnrc.yml"]);
    expect(plan.groups.flatMap((g) => g.updates.map((u) => u.locations))).toEqual([
      [
        {
          manifest: ".yarnrc.yml",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^1.5.0",
          from: "1.0.0",
          catalog: "default",
          usedBy: "package.json",
        },
      ],
    ]);
    expect(plan.skipped).toContainEqual({
      name: "other",
      manifest: "package.json",
      reason: 'a catalog entry ("catalog:nope") that .yarnrc.yml does not define',
    });
    // bun's, in the root package.json's workspaces.
    const bun = await planOf(
      {
        "package.json": JSON.stringify({
          name: "root",
          packageManager: "bun@1.3.0",
          dependencies: { lib: "catalog:" },
          workspaces: { packages: [], catalog: { lib: "^1.0.0" } },
        }),
        "bun.lock": JSON.stringify({
          lockfileVersion: 1,
          workspaces: { "": { name: "root", dependencies: { lib: "catalog:" } } },
          packages: { lib: ["lib@1.0.0", "", {}, "sha512-x"] },
        }),
      },
      memoryRegistry([packument("lib", ["1.0.0", "1.5.0"])]),
    );
    expect(bun.plan.manifests).toEqual(["package.json"]);
    expect(bun.plan.groups.flatMap((g) => g.updates.map((u) => u.locations))).toEqual([
      [
        {
          manifest: "package.json",
          section: "dependencies",
          spec: "^1.0.0",
          newSpec: "^1.5.0",
          from: "1.0.0",
          catalog: "default",
          usedBy: "package.json",
        },
      ],
    ]);
  });

  it("checks the peer ranges of packages it does not bump: ignored, of another section, or only in the lockfile", async () => {
    const ts = packument("typescript", ["5.9.0", "7.0.0"]);
    const lint = packument("typescript-eslint", ["8.0.0"]);
    (lint.versions["8.0.0"] as { peerDependencies?: Record<string, string> }).peerDependencies = {
      typescript: "<6.1.0",
    };
    const registry = memoryRegistry([ts, lint, packument("ts-api-utils", ["2.0.0"])]);
    const refused = "5.9.0 -> 7.0.0 is outside the peer range";
    const direct = {
      "package.json": JSON.stringify({
        name: "app",
        dependencies: { typescript: "^5.9.0" },
        devDependencies: { "typescript-eslint": "^8.0.0" },
      }),
      "package-lock.json": npmLock({ typescript: "5.9.0", "typescript-eslint": "8.0.0" }),
    };
    const reasons = (result: Awaited<ReturnType<typeof planOf>>) =>
      result.plan.skipped.filter((s) => s.name === "typescript").map((s) => s.reason);
    const ignored = await planOf(direct, registry, { ignore: ["typescript-eslint"] });
    expect(summary(ignored.plan.groups)).toEqual([]);
    expect(reasons(ignored)).toEqual([
      `${refused} "<6.1.0" that typescript-eslint 8.0.0 declares (npm would override it with a warning)`,
    ]);
    const runtimeOnly = await planOf(direct, registry, { dep_types: ["dependencies"] });
    expect(summary(runtimeOnly.plan.groups)).toEqual([]);
    expect(reasons(runtimeOnly)[0]).toContain(refused);

    // ts-api-utils is not in package.json: npm's lockfile records its peers.
    const transitive = await planOf(
      {
        "package.json": JSON.stringify({ name: "app", dependencies: { typescript: "^5.9.0" } }),
        "package-lock.json": JSON.stringify({
          lockfileVersion: 3,
          packages: {
            "": {},
            "node_modules/typescript": { version: "5.9.0" },
            "node_modules/ts-api-utils": {
              version: "2.0.0",
              peerDependencies: { typescript: ">=4.8.4 <6" },
            },
          },
        }),
      },
      registry,
    );
    expect(summary(transitive.plan.groups)).toEqual([]);
    expect(reasons(transitive)).toEqual([
      `${refused} ">=4.8.4 <6" that ts-api-utils 2.0.0 declares (npm would override it with a warning)`,
    ]);
  });

  it("covers only the dependency types deps.dep_types names", async () => {
    const files = {
      "package.json": JSON.stringify({
        name: "app",
        dependencies: { lib: "^1.0.0" },
        devDependencies: { tool: "^1.0.0" },
      }),
      "package-lock.json": npmLock({ lib: "1.0.0", tool: "1.0.0" }),
    };
    const registry = memoryRegistry([
      packument("lib", ["1.0.0", "1.1.0"]),
      packument("tool", ["1.0.0", "1.1.0"]),
    ]);
    const all = await planOf(files, registry);
    expect(summary(all.plan.groups)).toEqual([["minor-and-patch", ["lib@1.1.0", "tool@1.1.0"]]]);
    const runtime = await planOf(files, registry, { dep_types: ["dependencies"] });
    expect(summary(runtime.plan.groups)).toEqual([["minor-and-patch", ["lib@1.1.0"]]]);
    expect(runtime.plan.skipped.map((s) => s.name)).not.toContain("tool");
  });
});
