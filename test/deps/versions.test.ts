import { describe, expect, it } from "vitest";
import type { Packument } from "../../src/deps/registry.js";
import {
  chooseTargets,
  formatAge,
  updateType,
  type VersionPolicy,
} from "../../src/deps/versions.js";

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
    const node = { version: "20.18.0", source: "package.json engines.node >=20.18.0" };
    const choice = chooseTargets(withEngines, "1.0.0", policy({ node }));
    expect(choice.nonMajor?.version).toBe("1.1.0");
    expect(choice.major).toBeUndefined();
    expect(choice.passedOver.map((p) => `${p.version}: ${p.reason}`)).toContain(
      "2.0.0: needs Node >=22, and the project's Node is 20.18.0 (package.json engines.node >=20.18.0)",
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
    const node = { version: "18.0.0", source: "package.json engines.node >=18" };
    const choice = chooseTargets(mocha, "1.0.0", policy({ node }));
    expect(choice.nonMajor?.version).toBe("1.1.0");
    // 1.2.0 raises the floor above 1.0.0's: that is a new requirement.
    expect(choice.passedOver.map((p) => `${p.version}: ${p.reason}`)).toContain(
      "1.2.0: needs Node >=20.9.0, and the project's Node is 18.0.0 (package.json engines.node >=18)",
    );
  });

  it("passes over versions younger than the package manager's min-release-age, whatever the cooldown", () => {
    const releaseAge = { ms: 7 * DAY, source: "min-release-age=7 (.npmrc)" };
    const choice = chooseTargets(doc, "1.0.0", policy({ cooldownMs: 0, releaseAge }));
    const notes = choice.passedOver.map((p) => `${p.version}: ${p.reason}`);
    expect(
      notes.some((n) => /refuses it before 7 days \(min-release-age=7 \(\.npmrc\)\)/.test(n)),
    ).toBe(true);
  });

  it("proposes nothing when the current version is the newest acceptable one", () => {
    expect(chooseTargets(doc, "2.0.0", policy())).toMatchObject({
      passedOver: [expect.anything()],
    });
    expect(chooseTargets(doc, "2.1.0", policy()).passedOver).toEqual([]);
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
