import { describe, expect, it } from "vitest";
import {
  type NodeTarget,
  newestLts,
  parseNodeVersion,
  safeFloor,
} from "../../../src/deps/plan/node/node-version.js";
import { chooseTargets, formatAge, type VersionPolicy } from "../../../src/deps/plan/versions.js";
import type { Packument } from "../../../src/deps/registry/registry.js";
import { updateType } from "../../../src/deps/update.js";

const NOW = Date.parse("2026-06-01T00:00:00Z");
const DAY = 86_400_000;

function packument(
  versions: Record<string, { daysAgo: number; deprecated?: string }>,
  latest: string,
): Packument {
  return {
    name: "pkg",
    "dist-tags": { latest },
    versions: Object.fromEntries(
      Object.entries(versions).map(([v, info]) => [
        v,
        { version: v, ...(info.deprecated ? { deprecated: info.deprecated } : {}) },
      ]),
    ),
    time: Object.fromEntries(
      Object.entries(versions).map(([v, info]) => [
        v,
        new Date(NOW - info.daysAgo * DAY).toISOString(),
      ]),
    ),
  };
}

const engines = (range: string): NodeTarget => ({
  label: range,
  version: safeFloor(range) as string,
  source: "package.json engines.node",
  role: "engines",
});

const policy = (overrides: Partial<VersionPolicy> = {}): VersionPolicy => ({
  updateTypes: ["patch", "minor", "major"],
  cooldownMs: 3 * DAY,
  ignore: [],
  now: NOW,
  ...overrides,
});

describe("chooseTargets", () => {
  const doc = packument(
    {
      "1.0.0": { daysAgo: 100 },
      "1.1.0": { daysAgo: 50 },
      "1.2.0": { daysAgo: 40, deprecated: "bad build" },
      "2.0.0-beta.1": { daysAgo: 30 },
      "2.0.0": { daysAgo: 20 },
      "2.1.0": { daysAgo: 1 },
      "3.0.0": { daysAgo: 10 },
    },
    "2.1.0",
  );

  it("takes the newest stable, non-deprecated, aged version per kind, never past latest", () => {
    const choice = chooseTargets(doc, "1.0.0", policy());
    expect(choice.nonMajor).toMatchObject({ version: "1.1.0", type: "minor" });
    // 3.0.0 is newer but `latest` still points at 2.x; 2.1.0 is inside the cooldown.
    expect(choice.major).toMatchObject({ version: "2.0.0", type: "major" });
    expect(choice.passedOver.map((p) => `${p.version}: ${p.reason}`)).toEqual([
      "2.1.0: released 1 day ago, inside the 3 days cooldown",
      "1.2.0: deprecated: bad build",
    ]);
  });

  it("drops update kinds that are not enabled and versions an ignore rule excludes", () => {
    const choice = chooseTargets(
      doc,
      "1.0.0",
      policy({ updateTypes: ["patch", "minor"], ignore: [{ name: "p*", versions: "1.1.x" }] }),
    );
    expect(choice.nonMajor).toBeUndefined();
    expect(choice.major).toBeUndefined();
    expect(choice.passedOver.map((p) => p.reason)).toContain("ignored by deps.ignore (p* 1.1.x)");
  });

  it("passes over versions that need a newer Node than the project's engines.node allows", () => {
    const withEngines: Packument = {
      ...doc,
      versions: {
        ...doc.versions,
        "2.0.0": { version: "2.0.0", engines: { node: ">=22" } },
        "1.1.0": { version: "1.1.0", engines: { node: "^20.17.0 || >=22.9.0" } },
      },
    };
    const node = [engines(">=20.18.0")];
    const choice = chooseTargets(withEngines, "1.0.0", policy({ node }));
    expect(choice.nonMajor?.version).toBe("1.1.0");
    expect(choice.major).toBeUndefined();
    expect(choice.passedOver.map((p) => `${p.version}: ${p.reason}`)).toContain(
      "2.0.0: needs Node >=22, and package.json engines.node is >=20.18.0",
    );
  });

  it("is never stricter than the engines of the version already installed", () => {
    const mochaRange = "^18.18.0 || ^20.9.0 || >=21.1.0";
    const mocha: Packument = {
      ...doc,
      versions: {
        "1.0.0": { version: "1.0.0", engines: { node: mochaRange } },
        "1.1.0": { version: "1.1.0", engines: { node: mochaRange } },
        "1.2.0": { version: "1.2.0", engines: { node: ">=20.9.0" } },
        "2.0.0": { version: "2.0.0", engines: { node: ">=22" } },
        "2.1.0": { version: "2.1.0" },
      },
    };
    // The project says Node 18.0.0, which 1.0.0 already leaves out: the same range is no new problem.
    const node = [engines(">=18")];
    const choice = chooseTargets(mocha, "1.0.0", policy({ node }));
    expect(choice.nonMajor?.version).toBe("1.1.0");
    // 1.2.0 raises the floor above 1.0.0's: a new requirement, said without contradicting 1.1.0.
    expect(choice.passedOver.map((p) => `${p.version}: ${p.reason}`)).toContain(
      `1.2.0: needs Node >=20.9.0, more than the ${mochaRange} that 1.0.0 already needs (package.json engines.node is >=18)`,
    );
  });

  it("passes over versions younger than the package manager's min-release-age, whatever the cooldown", () => {
    const gate = { ms: 7 * DAY, source: "min-release-age=7 (.npmrc)" };
    const releaseAge = { ...gate, gates: [gate] };
    const choice = chooseTargets(doc, "1.0.0", policy({ cooldownMs: 0, releaseAge }));
    const notes = choice.passedOver.map((p) => `${p.version}: ${p.reason}`);
    expect(
      notes.some((n) => /refuses it before 7 days \(min-release-age=7 \(\.npmrc\)\)/.test(n)),
    ).toBe(true);
  });

  it("follows a line the project already uses past latest, never back to latest", () => {
    const ahead = packument(
      { "7.29.0": { daysAgo: 90 }, "8.0.1": { daysAgo: 80 }, "8.1.3": { daysAgo: 20 } },
      "7.29.0",
    );
    expect(chooseTargets(ahead, "8.0.1", policy()).nonMajor?.version).toBe("8.1.3");
    expect(chooseTargets(ahead, "7.0.0", policy()).nonMajor?.version).toBe("7.29.0");
  });

  it("proposes nothing when the current version is the newest acceptable one", () => {
    expect(chooseTargets(doc, "2.0.0", policy())).toMatchObject({
      passedOver: [expect.anything()],
    });
    expect(chooseTargets(doc, "2.1.0", policy()).passedOver).toEqual([]);
  });
});

describe("a prerelease pinned on purpose", () => {
  const nightly = (tags: Record<string, string>, days: Record<string, number>): Packument => ({
    ...packument(Object.fromEntries(Object.entries(days).map(([v, d]) => [v, { daysAgo: d }])), ""),
    "dist-tags": tags,
  });

  it("follows its own channel up to the dist-tag on it, like bun outdated and npm-check-updates", () => {
    const doc = nightly(
      { latest: "7.0.0-dev.20260707.2" },
      { "7.0.0-dev.20260210.1": 100, "7.0.0-dev.20260501.1": 40, "7.0.0-dev.20260707.2": 10 },
    );
    const choice = chooseTargets(doc, "7.0.0-dev.20260210.1", policy());
    expect(choice.nonMajor).toMatchObject({ version: "7.0.0-dev.20260707.2" });
    // Inside the cooldown, the channel's build is said, not silently "up to date".
    const young = chooseTargets(doc, "7.0.0-dev.20260210.1", policy({ cooldownMs: 20 * DAY }));
    expect(young.nonMajor?.version).toBe("7.0.0-dev.20260501.1");
    expect(young.passedOver.map((p) => p.version)).toEqual(["7.0.0-dev.20260707.2"]);
  });

  it("takes the stable release past its channel, and never a channel no dist-tag points at", () => {
    const doc = nightly(
      { latest: "1.3.3", beta: "1.0.0-beta.60" },
      { "1.0.0-beta.18": 300, "1.0.0-beta.60": 200, "1.3.3": 20 },
    );
    expect(chooseTargets(doc, "1.0.0-beta.18", policy()).nonMajor?.version).toBe("1.3.3");
    const ended = nightly(
      { latest: "0.9.0" },
      { "0.9.0": 300, "1.0.0-rc.1": 200, "1.0.0-rc.2": 100 },
    );
    const none = chooseTargets(ended, "1.0.0-rc.1", policy());
    expect([none.nonMajor, none.major, none.passedOver]).toEqual([undefined, undefined, []]);
  });
});

describe("the Node a version file names", () => {
  const needs = (range: string): Packument => ({
    ...doc(),
    versions: {
      "1.0.0": { version: "1.0.0" },
      "1.1.0": { version: "1.1.0", engines: { node: range } },
    },
  });
  const doc = () => packument({ "1.0.0": { daysAgo: 100 }, "1.1.0": { daysAgo: 50 } }, "1.1.0");
  const development = (text: string): NodeTarget => ({
    ...(parseNodeVersion(text) as { label: string; version: string }),
    source: ".nvmrc",
    role: "development",
  });

  it("reads a major alone as the newest release of that line, as nvm, fnm and setup-node do", () => {
    expect(parseNodeVersion("24")?.label).toBe("24.x");
    expect(parseNodeVersion("v24.7")?.label).toBe("24.7.x");
    expect(parseNodeVersion("lts/iron")?.label).toBe("20.x");
    // lts/* follows Node's schedule, not this build's list of codenames: 26 is LTS from October 2026.
    expect(parseNodeVersion("lts/*", Date.parse("2026-09-30T00:00:00Z"))?.label).toBe("24.x");
    expect(parseNodeVersion("lts/*", Date.parse("2026-12-01T00:00:00Z"))?.label).toBe("26.x");
    expect(parseNodeVersion("lts", Date.parse("2025-06-01T00:00:00Z"))?.label).toBe("24.x");
    expect(newestLts(Date.parse("2027-10-01T00:00:00Z"))).toBe(28);
    expect(parseNodeVersion("24.7.0")).toEqual({ label: "24.7.0", version: "24.7.0" });
    const tsdown = needs("^22.18.0 || ^24.11.0 || >=26.0.0");
    expect(
      chooseTargets(tsdown, "1.0.0", policy({ node: [development("24")] })).nonMajor?.version,
    ).toBe("1.1.0");
    // An exact 24.7.0 (.tool-versions) is older than 24.11.
    const exact = chooseTargets(tsdown, "1.0.0", policy({ node: [development("24.7.0")] }));
    expect(exact.passedOver.map((p) => p.reason)).toEqual([
      "needs Node ^22.18.0 || ^24.11.0 || >=26.0.0, and the project develops on Node 24.7.0 (.nvmrc)",
    ]);
    // An upper bound inside the line leaves its newest release out.
    expect(
      chooseTargets(needs(">=20 <24.5"), "1.0.0", policy({ node: [development("24")] })).nonMajor,
    ).toBeUndefined();
  });
});

describe("updateType", () => {
  it("treats 0.x minors and 0.0.x patches as breaking, like npm's caret", () => {
    expect(updateType("1.2.3", "1.2.4")).toBe("patch");
    expect(updateType("1.2.3", "1.3.0")).toBe("minor");
    expect(updateType("1.2.3", "2.0.0")).toBe("major");
    expect(updateType("0.2.3", "0.3.0")).toBe("major");
    expect(updateType("0.2.3", "0.2.4")).toBe("patch");
    expect(updateType("0.0.3", "0.0.4")).toBe("major");
  });

  it("formats ages the way a reviewer reads them", () => {
    expect(formatAge(2 * DAY + 5)).toBe("2 days");
    expect(formatAge(3_600_000)).toBe("1 hour");
    expect(formatAge(59_000)).toBe("0 minutes");
  });
});
