import { describe, expect, it } from "vitest";
import { buildDepsFixTask } from "../../../src/deps/fix/task.js";
import type { DepsGroupResult } from "../../../src/deps/group/group-result.js";
import {
  groupBranch,
  groupTitle,
  groupUpdates,
  type UpdateGroup,
} from "../../../src/deps/plan/groups.js";
import { renderDepsPlan } from "../../../src/deps/plan/render-plan.js";
import {
  alreadyProposed,
  declinedPull,
  markedUpdates,
  pullMovingSamePackage,
} from "../../../src/deps/publish/bump-pulls.js";
import { renderDepsPullRequestBody } from "../../../src/deps/publish/pr-body.js";
import { normalizeRepositoryUrl } from "../../../src/deps/registry/release-notes.js";
import type { Update } from "../../../src/deps/update.js";
import { NVMRC_24 } from "../memory-registry.js";

function update(
  name: string,
  from: string,
  to: string,
  type: Update["type"],
  extra: Partial<Update> = {},
): Update {
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
    ...extra,
  };
}

describe("groupUpdates", () => {
  it("names a linked group after each package once, when a package moves to two versions", () => {
    const inWorkspace = update("host", "2.0.0", "2.1.0", "minor");
    inWorkspace.locations = inWorkspace.locations.map((l) => ({
      ...l,
      manifest: "ws/package.json",
    }));
    const [group] = groupUpdates(
      [
        update("host", "1.0.0", "2.1.0", "major"),
        update("plugin", "1.0.0", "2.0.0", "major"),
        inWorkspace,
      ],
      { groups: [] },
      [["host", "plugin"]],
    );
    expect([group?.name, group?.slug, group?.updates.length]).toEqual([
      "host and plugin",
      "host-and-plugin-peers",
      3,
    ]);
  });

  it("names a linked group of more than three packages after its two most used", () => {
    // redux-toolkit: eight updates linked through react's minor, named one by one.
    const usedBy = (u: Update, count: number): Update => ({
      ...u,
      locations: Array.from({ length: count }, (_, i) => ({
        ...(u.locations[0] as Update["locations"][0]),
        manifest: `examples/${i}/package.json`,
      })),
    });
    const [group] = groupUpdates(
      [
        update("react-native-web", "0.19.0", "0.21.4", "major"),
        usedBy(update("react", "19.2.4", "19.3.1", "minor"), 24),
        usedBy(update("react-redux", "9.2.0", "9.3.1", "minor"), 20),
        usedBy(update("react-dom", "19.2.4", "19.3.1", "minor"), 24),
        update("@reduxjs/toolkit", "2.11.2", "2.16.0", "minor"),
      ],
      { groups: [] },
      [["react-native-web", "react", "react-redux", "react-dom", "@reduxjs/toolkit"]],
    );
    expect([group?.name, group?.slug, group?.updates.length]).toEqual([
      "react, react-dom and 3 more",
      "react-react-dom-and-3-more-peers",
      5,
    ]);
    expect(groupTitle(group as UpdateGroup)).toBe(
      "Bump the react, react-dom and 3 more group: 5 updates",
    );
  });

  it("puts majors a repository released together onto one line in one pull request, and no others", () => {
    const DAY = 86_400_000;
    const from = (repository: string) => ({ links: { repository } });
    const expo = "https://github.com/expo/expo";
    const rollup = "https://github.com/rollup/plugins";
    const types = "https://github.com/DefinitelyTyped/DefinitelyTyped";
    const majors = [
      // Expo's SDK 58, out over five weeks: @expo/config, expo 11 days later, expo-status-bar 22 after that.
      update("expo", "52.0.49", "58.0.26", "major", from(expo)),
      update("@expo/config", "10.0.11", "58.0.13", "major", from(expo)),
      update("expo-status-bar", "2.2.3", "58.0.5", "major", from(expo)),
      // An Expo package on another line is no part of it.
      update("expo-router", "4.0.0", "6.0.1", "major", from(expo)),
      // Two plugins of one repository that reached 6 two years apart.
      update("@rollup/plugin-json", "4.1.0", "6.1.0", "major", from(rollup)),
      update("@rollup/plugin-replace", "2.4.2", "6.0.3", "major", from(rollup)),
      // DefinitelyTyped publishes unrelated packages.
      update("@types/a", "4.0.0", "5.0.0", "major", from(types)),
      update("@types/b", "4.0.0", "5.0.0", "major", from(types)),
    ];
    const released: Record<string, number> = {
      "@expo/config": 0,
      expo: 11 * DAY,
      "expo-status-bar": 33 * DAY,
      "expo-router": 0,
      "@rollup/plugin-json": 0,
      "@rollup/plugin-replace": 700 * DAY,
      "@types/a": 0,
      "@types/b": 0,
    };
    const groups = groupUpdates(majors, { groups: [] }, [], (u) => released[u.name]);
    const bySlug = [...groups].sort((a, b) => a.slug.localeCompare(b.slug));
    expect(bySlug.map((g) => [g.slug, g.name, g.single, g.updates.map((u) => u.name)])).toEqual([
      ["expo-expo-58", "expo/expo 58", false, ["expo", "@expo/config", "expo-status-bar"]],
      ["expo-router-6", "expo-router 6", true, ["expo-router"]],
      ["rollup-plugin-json-6", "@rollup/plugin-json 6", true, ["@rollup/plugin-json"]],
      ["rollup-plugin-replace-6", "@rollup/plugin-replace 6", true, ["@rollup/plugin-replace"]],
      ["types-a-5", "@types/a 5", true, ["@types/a"]],
      ["types-b-5", "@types/b 5", true, ["@types/b"]],
    ]);
    expect(groupTitle(bySlug[0] as UpdateGroup)).toBe("Bump the expo/expo 58 group: 3 updates");
    // Without release times (a caller that has none), every major stays alone.
    expect(groupUpdates(majors, { groups: [] }).filter((g) => g.single)).toHaveLength(8);
  });

  it("puts minor and patch updates together, each major alone, configured groups first", () => {
    const groups = groupUpdates(
      [
        update("@types/node", "20.1.0", "20.2.0", "minor"),
        update("eslint", "8.0.0", "9.0.0", "major"),
        update("eslint-plugin-x", "1.0.0", "1.0.1", "patch"),
        update("left-pad", "1.0.0", "1.0.1", "patch"),
        update("react", "17.0.2", "18.3.1", "major"),
        update("zod", "0.3.0", "0.4.0", "major"),
      ],
      {
        groups: [
          {
            name: "lint",
            patterns: ["eslint", "eslint-*"],
            updateTypes: ["patch", "minor", "major"],
          },
        ],
      },
    );
    expect(groups.map((g) => [g.slug, g.single, g.updates.map((u) => u.name)])).toEqual([
      ["lint", false, ["eslint", "eslint-plugin-x"]],
      ["minor-and-patch", false, ["@types/node", "left-pad"]],
      ["react-18", true, ["react"]],
      ["zod-0.4", true, ["zod"]],
    ]);
    expect(groupBranch("agent/", groups[2] ?? { slug: "" })).toBe("agent/deps/react-18");
    expect(groups.map(groupTitle)).toEqual([
      "Bump the lint group: 2 updates",
      "Bump the minor and patch group: 2 updates",
      "Bump react from 17.0.2 to 18.3.1",
      "Bump zod from 0.3.0 to 0.4.0",
    ]);
  });

  it("sends a peer-linked update to the major's group, never into minor and patch", () => {
    const groups = groupUpdates(
      [
        update("left-pad", "1.0.0", "1.0.1", "patch"),
        update("ts-lint", "8.0.0", "8.5.0", "minor"),
        update("ts", "5.9.0", "7.0.0", "major"),
      ],
      { groups: [] },
      [["ts", "ts-lint"]],
    );
    const bySlug = [...groups].sort((a, b) => a.slug.localeCompare(b.slug));
    expect(bySlug.map((g) => [g.slug, g.name, g.single, g.updates.map((u) => u.name)])).toEqual([
      ["minor-and-patch", "minor and patch", false, ["left-pad"]],
      ["ts-and-ts-lint-peers", "ts and ts-lint", false, ["ts", "ts-lint"]],
    ]);
  });

  it("titles the default group as its branch is named, whatever it holds this time", () => {
    const [patches] = groupUpdates(
      [update("a", "1.0.0", "1.0.1", "patch"), update("b", "2.0.0", "2.0.3", "patch")],
      { groups: [] },
    );
    expect([patches?.slug, patches?.name]).toEqual(["minor-and-patch", "minor and patch"]);
    expect(groupTitle(patches as UpdateGroup)).toBe("Bump the minor and patch group: 2 updates");
    const [both] = groupUpdates(
      [update("a", "1.0.0", "1.0.1", "patch"), update("b", "2.0.0", "2.1.0", "minor")],
      { groups: [] },
    );
    expect(both?.name).toBe("minor and patch");
  });
});

describe("the order pull requests open in", () => {
  it("opens the majors most likely to be merged first: the smallest jump, then the most used", () => {
    const shared = update("shared", "2.0.0", "3.0.0", "major");
    shared.locations = ["package.json", "packages/a/package.json", "packages/b/package.json"].map(
      (manifest) => ({
        manifest,
        section: "dependencies" as const,
        spec: "^2.0.0",
        newSpec: "^3.0.0",
        from: "2.0.0",
      }),
    );
    const groups = groupUpdates(
      [
        update("big", "1.0.0", "4.0.0", "major"),
        update("zero", "0.1.0", "0.2.0", "major"),
        update("oxc", "0.96.0", "0.159.0", "major"),
        update("small", "1.0.0", "2.1.0", "major"),
        shared,
        update("left-pad", "1.0.0", "1.0.1", "patch"),
      ],
      { groups: [] },
    );
    expect(groups.map((g) => g.slug)).toEqual([
      "minor-and-patch",
      "shared-3",
      "small-2",
      "zero-0.2",
      "big-4",
      "oxc-0.159",
    ]);
    const plan = renderDepsPlan(
      {
        registry: "https://registry.npmjs.org/",
        manifests: ["package.json"],
        groups,
        skipped: [],
        warnings: [],
        upToDate: 0,
        internal: 0,
        maxOpenPrs: 3,
        manager: "npm",
        node: {
          development: NVMRC_24,
          engines: {},
        },
      },
      { now: 0, branchPrefix: "agent/" },
    );
    expect(plan).toContain(
      "They open in this order: security fixes, then groups, then majors, smallest jump first (fewest breaking versions crossed), then the most used (most package.json files), then by name; past deps.max_open_prs (3) the rest wait.",
    );
    expect(plan).toContain(
      "Bump big from 1.0.0 to 4.0.0  (branch agent/deps/big-4; waits: deps.max_open_prs is 3)",
    );
  });

  it("keeps one update per package.json: workspaces on different majors each keep theirs", () => {
    const at = (manifest: string, from: string, to: string): Update => ({
      ...update("@types/node", from, to, "minor"),
      locations: [
        { manifest, section: "devDependencies", spec: `^${from}`, newSpec: `^${to}`, from },
      ],
    });
    const [group] = groupUpdates(
      [
        at("packages/a/package.json", "22.1.0", "22.20.7"),
        at("packages/b/package.json", "24.3.0", "24.19.4"),
      ],
      { groups: [] },
    );
    expect(group?.updates.map((u) => `${u.locations[0]?.manifest} ${u.to}`)).toEqual([
      "packages/a/package.json 22.20.7",
      "packages/b/package.json 24.19.4",
    ]);
  });
});

describe("the pull request body", () => {
  it("puts scoped package names in code wherever it names one: no team mention", () => {
    const client = update("@trpc/client", "11.4.3", "11.22.1", "minor", {
      passedOver: ['11.25.2: @trpc/tanstack-react-query 11.22.1 asks for @trpc/client "11.22.1"'],
      newInstallScripts: ["postinstall"],
    });
    const major = update("@types/node", "22.1.0", "24.0.0", "major");
    const broken = update("@scope/broken", "1.0.0", "1.1.0", "minor");
    const failing = {
      command: "npm test",
      passed: false,
      exit: "1",
      timedOut: false,
      durationMs: 1,
      outputTail: "fails",
    };
    const body = renderDepsPullRequestBody(
      {
        group: { slug: "all", name: "all", single: false, updates: [client, major, broken] },
        branch: "agent/deps/all",
        status: "partial",
        applied: [client, major],
        leftOut: [{ update: broken, failure: { stage: "verify", result: failing } }],
        verify: { ...failing, passed: true, exit: "0" },
        commits: [],
        unreviewedScripts: [
          { name: "@scope/native", version: "3.1.0", otherVersions: [], tool: "npm" },
        ],
        durationMs: 1,
      },
      { now: Date.UTC(2026, 0, 11) },
    );
    // Every scoped name sits in a code span (the marker comment aside, which GitHub does not render).
    const prose = body
      .split("\n")
      .slice(1)
      .join("\n")
      .replace(/`[^`]*`/g, "");
    expect(prose).not.toMatch(/@[a-z]+\//);
    for (const name of ["@trpc/client", "@types/node", "@scope/broken", "@scope/native"])
      expect(body).toContain(`\`${name}\``);
    expect(body).toContain("passed over 11.25.2: `@trpc/tanstack-react-query` 11.22.1 asks for");
  });

  it("tables the updates and names what was left out, the agent's fix, the checks and the warnings", () => {
    const kept = update("fx-a", "1.0.0", "2.0.0", "major", {
      publishedAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
      links: {
        repository: "https://github.com/o/fx-a",
        releases: "https://github.com/o/fx-a/releases",
      },
      newInstallScripts: ["postinstall"],
      unapprovedScripts: { tool: "npm", scripts: ["postinstall"], otherVersions: ["fx-a@1.0.0"] },
    });
    const culprit = update("fx-b", "1.0.0", "1.1.0", "minor");
    const verify = {
      command: "npm test",
      passed: true,
      exit: "0",
      timedOut: false,
      durationMs: 3_000,
      outputTail: "ok",
    };
    const failing = { ...verify, passed: false, exit: "1", outputTail: "Error: fx-b is broken" };
    const result: DepsGroupResult = {
      group: { slug: "all", name: "all", single: false, updates: [kept, culprit] },
      branch: "agent/deps/all",
      status: "partial",
      applied: [kept],
      leftOut: [{ update: culprit, failure: { stage: "verify", result: failing } }],
      firstFailure: { stage: "verify", result: failing },
      agent: {
        stopReason: "end_turn",
        summary: "Renamed the import.",
        files: ["src/a.ts"],
        costUsd: 0.1,
        fixed: false,
      },
      verify,
      commits: [],
      // fx-a's own entry is what its update's line says; fx-native comes with it.
      unreviewedScripts: [
        { name: "fx-a", version: "2.0.0", otherVersions: ["fx-a@1.0.0"], tool: "npm" },
        { name: "fx-native", version: "3.1.0", otherVersions: [], tool: "npm" },
      ],
      durationMs: 1,
    };
    const body = renderDepsPullRequestBody(result, { now: Date.UTC(2026, 0, 11) });
    expect(body).toContain(
      "| [fx-a](https://github.com/o/fx-a) | `1.0.0` → `2.0.0` | major | 10 days ago | [release notes](https://github.com/o/fx-a/releases) |",
    );
    expect(body).toContain(
      "- **`fx-b`** 1.0.0 → 1.1.0: with it the checks failed (`npm test`, exit 1)",
    );
    expect(body).toContain("Error: fx-b is broken");
    expect(body).toContain("Files changed: `src/a.ts`.\n\n> Renamed the import.");
    expect(body).toContain("✅ `npm test` passed in 3s.");
    expect(body).toContain("**`fx-a`** crosses a major version");
    expect(body).toContain("**`fx-a`** 2.0.0 adds `postinstall` script");
    expect(body).toContain(
      "- ⚠️ **`fx-a`** 2.0.0 has a `postinstall` script that package.json's `allowScripts` does not approve (it approves `fx-a@1.0.0`): npm 12 and later skip it on install. Review it, then approve it with `npm approve-scripts fx-a`.",
    );
    // What the lockfile locks: once, where the update's own line has not said it already.
    expect(body).toContain(
      "- ⚠️ **`fx-native`** 3.1.0, which this update locks, has an install script that package.json's `allowScripts` does not approve: npm 12",
    );
    expect(body.match(/\*\*`fx-a`\*\* 2\.0\.0[^\n]*allowScripts/g)).toHaveLength(1);
    expect(body.split("\n")[0]).toBe("<!-- patchwright:deps fx-a@2.0.0 -->");
    expect(markedUpdates(body)).toEqual(new Set(["fx-a@2.0.0"]));

    const task = buildDepsFixTask({
      updates: [kept],
      failure: { stage: "verify", result: failing },
    });
    expect(task).toContain(
      "- fx-a 1.0.0 -> 2.0.0 (major, package.json) — https://github.com/o/fx-a/releases",
    );
    expect(task).toContain("Failing command (exit 1): `npm test`");
    expect(task).toContain("Error: fx-b is broken");
  });
});

describe("declined pull requests", () => {
  it("skip a group only while it proposes nothing the closed pull request did not", () => {
    const pulls = {
      open: new Set<string>(),
      openUpdates: new Map<string, Set<string>>(),
      declined: new Map([
        ["agent/deps/x-2", { number: 7, url: "u", updates: new Set(["x@2.0.0"]) }],
      ]),
    };
    expect(declinedPull(pulls, "agent/deps/x-2", [{ name: "x", to: "2.0.0" }])?.number).toBe(7);
    expect(declinedPull(pulls, "agent/deps/x-2", [{ name: "x", to: "2.0.1" }])).toBeUndefined();
    expect(markedUpdates("no marker")).toBeUndefined();
  });

  it("hold a group back while another open pull request moves one of its packages", () => {
    const pulls = {
      open: new Set(["agent/deps/minor-and-patch"]),
      openUpdates: new Map([
        ["agent/deps/minor-and-patch", new Set(["@scope/x@1.2.0", "y@3.1.0"])],
      ]),
      declined: new Map(),
    };
    expect(pullMovingSamePackage(pulls, "agent/deps/scope-x-2", [{ name: "@scope/x" }])).toEqual({
      branch: "agent/deps/minor-and-patch",
      name: "@scope/x",
    });
    // Its own branch is no clash, and a package named like a prefix is another package.
    expect(
      pullMovingSamePackage(pulls, "agent/deps/minor-and-patch", [{ name: "y" }]),
    ).toBeUndefined();
    expect(
      pullMovingSamePackage(pulls, "agent/deps/other", [{ name: "@scope/x2" }]),
    ).toBeUndefined();
    expect(
      alreadyProposed(pulls, "agent/deps/minor-and-patch", [
        { name: "@scope/x", to: "1.2.0" },
        { name: "y", to: "3.1.0" },
      ]),
    ).toBe(true);
    expect(alreadyProposed(pulls, "agent/deps/minor-and-patch", [{ name: "y", to: "3.1.0" }])).toBe(
      false,
    );
  });
});

describe("normalizeRepositoryUrl", () => {
  it("turns the forms packuments use into browsable URLs", () => {
    expect(normalizeRepositoryUrl("git+https://github.com/a/b.git")).toBe("https://github.com/a/b");
    expect(normalizeRepositoryUrl("github:a/b")).toBe("https://github.com/a/b");
    expect(normalizeRepositoryUrl("a/b")).toBe("https://github.com/a/b");
    expect(normalizeRepositoryUrl("git@gitlab.com:g/p.git")).toBe("https://gitlab.com/g/p");
    expect(normalizeRepositoryUrl("git://github.com/a/b.git")).toBe("https://github.com/a/b");
    expect(normalizeRepositoryUrl("file:///tmp/x")).toBeUndefined();
  });
});
