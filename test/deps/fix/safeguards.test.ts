import { describe, expect, it } from "vitest";
import { safeguardsLoosened } from "../../../src/deps/fix/safeguards.js";

const change = (path: string, before: string | null, after: string | null) => ({
  path,
  before: before === null ? null : Buffer.from(before),
  after: after === null ? null : Buffer.from(after),
});

describe("safeguardsLoosened", () => {
  it("names each approval a fix adds, in every tool's setting, and nothing it keeps or takes out", () => {
    const found = safeguardsLoosened([
      change(
        "pnpm-workspace.yaml",
        "allowBuilds:\n  sharp: true\nonlyBuiltDependencies: [esbuild]\n",
        "allowBuilds:\n  sharp: true\n  fx-native@2.0.0: true\n  core-js: false\nonlyBuiltDependencies: [esbuild, nx]\n",
      ),
      change(
        "web/package.json",
        JSON.stringify({ allowScripts: { a: true, b: true } }),
        JSON.stringify({
          allowScripts: { a: true, c: true, d: false },
          trustedDependencies: ["bun-native"],
          pnpm: { onlyBuiltDependencies: ["old-style"] },
        }),
      ),
      // A new file counts whole; one taken out adds nothing.
      change("packages/x/pnpm-workspace.yaml", null, "dangerouslyAllowAllBuilds: true\n"),
      change("gone/package.json", JSON.stringify({ allowScripts: { z: true } }), null),
      change("src/index.js", "a", "b"),
    ]);
    expect(found).toEqual([
      "`fx-native@2.0.0` (pnpm-workspace.yaml allowBuilds)",
      "`nx` (pnpm-workspace.yaml onlyBuiltDependencies)",
      "`c` (web/package.json allowScripts)",
      "`old-style` (web/package.json pnpm.onlyBuiltDependencies)",
      "`bun-native` (web/package.json trustedDependencies)",
      "`every package` (packages/x/pnpm-workspace.yaml dangerouslyAllowAllBuilds)",
    ]);
  });

  it("names the packages a fix lets past a release-age gate or pnpm's trust policy", () => {
    const found = safeguardsLoosened([
      change(
        "pnpm-workspace.yaml",
        "minimumReleaseAge: 10080\nminimumReleaseAgeExclude: ['@acme/*']\ntrustPolicy: no-downgrade\n",
        "minimumReleaseAge: 10080\nminimumReleaseAgeExclude: ['@acme/*', vite@8.4.1]\ntrustPolicy: no-downgrade\ntrustPolicyExclude: [fx-lost@1.1.0]\n",
      ),
      change(
        ".yarnrc.yml",
        'npmMinimalAgeGate: "3d"\n',
        'npmMinimalAgeGate: "3d"\nnpmPreapprovedPackages: ["react*"]\n',
      ),
      change(
        "bunfig.toml",
        "[install]\nminimumReleaseAge = 259200\n",
        '[install]\nminimumReleaseAge = 259200\nminimumReleaseAgeExcludes = [\n  "typescript",\n]\n',
      ),
    ]);
    expect(found).toEqual([
      "`vite@8.4.1` (pnpm-workspace.yaml minimumReleaseAgeExclude)",
      "`fx-lost@1.1.0` (pnpm-workspace.yaml trustPolicyExclude)",
      "`react*` (.yarnrc.yml npmPreapprovedPackages)",
      "`typescript` (bunfig.toml minimumReleaseAgeExcludes)",
    ]);
  });

  it("names a gate a fix lowers or takes out, and none it raises or keeps", () => {
    const found = safeguardsLoosened([
      change(
        "pnpm-workspace.yaml",
        "minimumReleaseAge: 10080\ntrustPolicy: no-downgrade\n",
        "minimumReleaseAge: 1440\n",
      ),
      change(".yarnrc.yml", 'npmMinimalAgeGate: "3d"\n', "npmMinimalAgeGate: 0\n"),
      change(".npmrc", "min-release-age=7\nminimum-release-age=60\n", "minimum-release-age=120\n"),
      change("app/bunfig.toml", "[install]\nminimumReleaseAge = 259200\n", null),
      // Stricter: nothing to say.
      change("web/.yarnrc.yml", "npmMinimalAgeGate: 60\n", 'npmMinimalAgeGate: "2d"\n'),
    ]);
    expect(found).toEqual([
      "minimumReleaseAge lowered from 10080 to 1440 (pnpm-workspace.yaml)",
      "trustPolicy no-downgrade removed (pnpm-workspace.yaml)",
      "npmMinimalAgeGate lowered from 3d to 0 (.yarnrc.yml)",
      "min-release-age 7 removed (.npmrc)",
      "minimumReleaseAge 259200 removed (app/bunfig.toml)",
    ]);
  });

  it("is empty for a fix that leaves the settings as they were", () => {
    const same = JSON.stringify({ allowScripts: { a: true }, dependencies: { x: "1.0.0" } });
    const edited = JSON.stringify({ allowScripts: { a: true }, dependencies: { x: "2.0.0" } });
    expect(safeguardsLoosened([change("package.json", same, edited)])).toEqual([]);
    expect(safeguardsLoosened([change("package.json", "{not json", "{still not")])).toEqual([]);
  });
});
