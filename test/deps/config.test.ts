import { describe, expect, it } from "vitest";
import { defaultDepsConfig, depsScheduleOf, parseDepsConfig } from "../../src/deps/config.js";
import { cronProblem, isDepsRunDue, nextDepsRun } from "../../src/deps/plan/schedule.js";

describe("parseDepsConfig", () => {
  it("gives every setting a default", () => {
    expect(defaultDepsConfig()).toEqual({
      enabled: true,
      schedule: "0 6 * * 1",
      updateTypes: ["patch", "minor", "major"],
      cooldownDays: 3,
      groups: [],
      ignore: [],
      maxOpenPrs: 5,
      maxBisectChecks: 12,
      rangeStrategy: "auto",
      depTypes: ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"],
      securityUpdates: true,
      labels: ["dependencies"],
    });
    expect(parseDepsConfig(null).ok).toBe(true);
  });

  it("reads the range strategy, dependency types and labels, and names bad values", () => {
    const parsed = parseDepsConfig({
      range_strategy: "widen",
      dep_types: ["dependencies"],
      labels: ["deps", "bot"],
    });
    expect(parsed).toMatchObject({
      ok: true,
      config: { rangeStrategy: "widen", depTypes: ["dependencies"], labels: ["deps", "bot"] },
    });
    const bad = parseDepsConfig({ range_strategy: "lockfile", dep_types: ["devDeps"] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems).toEqual([
      "deps.range_strategy: expected one of auto, bump, widen, pin, replace",
      "deps.dep_types[0]: expected one of dependencies, devDependencies, peerDependencies, optionalDependencies",
    ]);
  });

  it("reads groups, ignore rules (names or mappings) and a verify override", () => {
    const parsed = parseDepsConfig({
      schedule: "30 4 * * *",
      groups: [{ name: "eslint", patterns: ["eslint", "eslint-*", "@eslint/*"] }],
      ignore: ["typescript", { name: "react*", versions: ">=19" }],
      verify: null,
      max_open_prs: 2,
      max_bisect_checks: 0,
    });
    expect(parsed).toMatchObject({
      ok: true,
      config: {
        schedule: "30 4 * * *",
        groups: [
          {
            name: "eslint",
            patterns: ["eslint", "eslint-*", "@eslint/*"],
            updateTypes: ["patch", "minor"],
          },
        ],
        ignore: [{ name: "typescript" }, { name: "react*", versions: ">=19" }],
        verify: null,
        maxOpenPrs: 2,
        maxBisectChecks: 0,
      },
    });
  });

  it("names each bad field the way the maintainer wrote it", () => {
    const parsed = parseDepsConfig({
      schedule: "every monday",
      groups: [{ name: "x", patterns: [] }],
      ignore: [{ name: "lodash", versions: "newest" }],
      max_open_prs: 0,
      max_bisect_checks: 2.5,
      cooldown: 3,
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual([
      "deps.schedule: expected five cron fields (minute hour day month weekday), got 2",
      "deps.groups[0].patterns: expected at least one package name pattern",
      'deps.ignore[0].versions: expected a version range npm understands, such as ">=2" or "1.x"',
      "deps.max_open_prs: expected a whole number above 0",
      "deps.max_bisect_checks: expected a whole number, 0 or more",
      expect.stringMatching(
        /^deps\.cooldown: unknown setting; known: enabled, schedule, .*cooldown_days/,
      ),
    ]);
  });
});

describe("schedules", () => {
  it("are opt-in: a deps section turns bumps on, enabled: false or a bad section off", () => {
    expect(depsScheduleOf(undefined)).toEqual({
      enabled: false,
      reason: "no deps: section in .github/patchwright.yml",
    });
    expect(depsScheduleOf({})).toMatchObject({ enabled: true, schedule: "0 6 * * 1" });
    expect(depsScheduleOf({ schedule: "15 3 * * *" })).toMatchObject({
      enabled: true,
      schedule: "15 3 * * *",
    });
    expect(depsScheduleOf({ enabled: false })).toEqual({
      enabled: false,
      reason: "deps.enabled is false",
    });
    expect(depsScheduleOf({ schedule: 5 })).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("deps.schedule"),
    });
  });

  it("refuses schedules that would fire every minute or are not cron", () => {
    expect(cronProblem("0 6 * * 1")).toBeNull();
    expect(cronProblem("* 6 * * 1")).toMatch(/fixed minute/);
    expect(cronProblem("0 25 * * *")).toMatch(/not a valid cron expression/);
  });

  it("computes the next run in UTC and whether one is due", () => {
    const monday = new Date("2026-11-30T06:00:00Z");
    expect(nextDepsRun("0 6 * * 1", new Date("2026-11-29T12:00:00Z"))).toEqual(monday);
    expect(
      isDepsRunDue("0 6 * * 1", new Date("2026-11-29T12:00:00Z"), new Date("2026-11-30T05:59:00Z")),
    ).toBe(false);
    expect(
      isDepsRunDue("0 6 * * 1", new Date("2026-11-29T12:00:00Z"), new Date("2026-11-30T06:00:00Z")),
    ).toBe(true);
  });
});
