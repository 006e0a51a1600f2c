import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pnpmExemption } from "../../../src/deps/plan/pnpm-rules.js";
import { readReleaseAge, releaseAgeFor } from "../../../src/deps/plan/release-age.js";
import { chooseTargets } from "../../../src/deps/plan/versions.js";
import type { Packument } from "../../../src/deps/registry/registry.js";

const MINUTE = 60_000;
const DAY = 86_400_000;
let root: string;
let made = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-release-age-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = join(root, `p${made++}`);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** The gate each package@version answers to under these files, as "ms source" or "none". */
async function gates(
  files: Record<string, string>,
  packages: string[],
  options: {
    npmrc?: Record<string, string>;
    manager?: { name: "yarn-berry" | "pnpm"; pinned?: string };
  } = {},
): Promise<string[]> {
  const dir = await project(files);
  const age = await readReleaseAge(dir, { options: options.npmrc ?? {} }, options.manager);
  return packages.map((spec) => {
    const at = spec.lastIndexOf("@");
    const gate = releaseAgeFor(age, spec.slice(0, at), spec.slice(at + 1));
    return `${spec}: ${gate ? `${gate.ms / MINUTE}m ${gate.source}` : "none"}`;
  });
}

describe("pnpm's minimumReleaseAgeExclude", () => {
  it("lets through names, * patterns and exact versions; the first matching entry decides", async () => {
    const workspace = [
      "minimumReleaseAge: 4320",
      "minimumReleaseAgeExclude:",
      "  - '@astrojs/*'",
      "  - vite@8.1.0",
      "  - '@napi-rs/wasm-runtime@1.1.6 || 1.2.0'",
      "  - workerd",
      "  - vite", // never reached: vite@8.1.0 came first
      "  - 'bad-*@1.0.0'", // a pattern with versions: pnpm refuses the setting
      "",
    ].join("\n");
    expect(
      await gates({ "pnpm-workspace.yaml": workspace }, [
        "@astrojs/markdown-remark@7.0.1",
        "@astrojs2/x@1.0.0",
        "vite@8.1.0",
        "vite@8.4.1",
        "@napi-rs/wasm-runtime@1.2.0",
        "@napi-rs/wasm-runtime@1.1.7",
        "workerd@1.2026.1",
        "workerd-x@1.0.0",
        "bad-thing@1.0.0",
      ]),
    ).toEqual([
      "@astrojs/markdown-remark@7.0.1: none",
      "@astrojs2/x@1.0.0: 4320m minimumReleaseAge: 4320 in pnpm-workspace.yaml",
      "vite@8.1.0: none",
      "vite@8.4.1: 4320m minimumReleaseAge: 4320 in pnpm-workspace.yaml",
      "@napi-rs/wasm-runtime@1.2.0: none",
      "@napi-rs/wasm-runtime@1.1.7: 4320m minimumReleaseAge: 4320 in pnpm-workspace.yaml",
      "workerd@1.2026.1: none",
      "workerd-x@1.0.0: 4320m minimumReleaseAge: 4320 in pnpm-workspace.yaml",
      "bad-thing@1.0.0: 4320m minimumReleaseAge: 4320 in pnpm-workspace.yaml",
    ]);
  });

  it("reads * as any characters, / included, and a lone !pattern as every other name (@pnpm/matcher)", () => {
    const exempt = pnpmExemption(["*lint*"]);
    expect(
      ["eslint", "@typescript-eslint/parser", "prettier"].map((n) => exempt(n, "1.0.0")),
    ).toEqual([true, true, false]);
    const allBut = pnpmExemption(["!react"]);
    expect([allBut("react", "19.0.0"), allBut("vue", "3.5.0")]).toEqual([false, true]);
    // Regular-expression characters in a name are literal.
    expect(pnpmExemption(["a.b*"])("axb-c", "1.0.0")).toBe(false);
  });

  it("exempts from pnpm's gates only: npm's min-release-age still holds the package", async () => {
    const files = {
      "pnpm-workspace.yaml": "minimumReleaseAge: 1440\nminimumReleaseAgeExclude: [fx-free]\n",
    };
    expect(
      await gates(files, ["fx-free@1.1.0", "fx-held@1.1.0"], {
        npmrc: { "minimum-release-age": "60" },
      }),
    ).toEqual([
      // pnpm's .npmrc setting shares pnpm's exclusions.
      "fx-free@1.1.0: none",
      "fx-held@1.1.0: 1440m minimumReleaseAge: 1440 in pnpm-workspace.yaml",
    ]);
    expect(await gates(files, ["fx-free@1.1.0"], { npmrc: { "min-release-age": "2" } })).toEqual([
      "fx-free@1.1.0: 2880m min-release-age=2 (.npmrc)",
    ]);
  });
});

describe("pnpm 11's gate", () => {
  const pnpm = (pinned: string) => ({ manager: { name: "pnpm" as const, pinned } });

  it("is a day by default from pnpm 11, which reads no minimum-release-age from .npmrc", async () => {
    expect(await gates({}, ["x@1.0.0"], pnpm("pnpm@11.18.0+sha512.abc"))).toEqual([
      "x@1.0.0: 1440m pnpm 11.18.0's default minimumReleaseAge of 1 day",
    ]);
    expect(await gates({}, ["x@1.0.0"], pnpm("pnpm@10.34.8"))).toEqual(["x@1.0.0: none"]);
    // Unpinned, the pnpm that runs is not known: no default is assumed.
    expect(await gates({}, ["x@1.0.0"], { manager: { name: "pnpm" } })).toEqual(["x@1.0.0: none"]);
    // Set to 0 the gate is off; set, it replaces the default; its exclusions apply to the default too.
    const workspace = (text: string) => ({ "pnpm-workspace.yaml": text });
    expect(
      await gates(workspace("minimumReleaseAge: 0\n"), ["x@1.0.0"], pnpm("pnpm@11.0.0")),
    ).toEqual(["x@1.0.0: none"]);
    expect(
      await gates(workspace("minimumReleaseAge: 60\n"), ["x@1.0.0"], pnpm("pnpm@12.24.0")),
    ).toEqual(["x@1.0.0: 60m minimumReleaseAge: 60 in pnpm-workspace.yaml"]);
    expect(
      await gates(workspace("minimumReleaseAgeExclude: [x]\n"), ["x@1.0.0", "y@1.0.0"], {
        ...pnpm("pnpm@11.18.0"),
        npmrc: { "minimum-release-age": "10080" },
      }),
    ).toEqual([
      "x@1.0.0: none",
      "y@1.0.0: 1440m pnpm 11.18.0's default minimumReleaseAge of 1 day",
    ]);
  });
});

describe("yarn's gate", () => {
  const yarn = (pinned: string) => ({ manager: { name: "yarn-berry" as const, pinned } });

  it("is a day by default from yarn 4.15, as the pinned yarn or its yarnPath release says", async () => {
    expect(await gates({}, ["x@1.0.0"], yarn("yarn@4.17.0+sha512.c295"))).toEqual([
      "x@1.0.0: 1440m yarn 4.17.0's default npmMinimalAgeGate of 1 day",
    ]);
    expect(await gates({}, ["x@1.0.0"], yarn("yarn@4.14.1"))).toEqual(["x@1.0.0: none"]);
    // yarnPath runs its release, whatever packageManager says.
    expect(
      await gates(
        { ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.15.0.cjs\n" },
        ["x@1.0.0"],
        yarn("yarn@4.12.0"),
      ),
    ).toEqual(["x@1.0.0: 1440m yarn 4.15.0's default npmMinimalAgeGate of 1 day"]);
    // Set to 0, the gate is off; yarn 1 has none.
    expect(
      await gates({ ".yarnrc.yml": "npmMinimalAgeGate: 0\n" }, ["x@1.0.0"], yarn("yarn@4.18.1")),
    ).toEqual(["x@1.0.0: none"]);
    const classic = await project({});
    expect(
      await readReleaseAge(
        classic,
        { options: {} },
        { name: "yarn-classic", pinned: "yarn@1.22.22" },
      ),
    ).toBeUndefined();
  });

  it("lets npmPreapprovedPackages through (names, globs, name@range) and reads npmScopes' own gates", async () => {
    const yarnrc = [
      'npmMinimalAgeGate: "3d"',
      "npmPreapprovedPackages:",
      "  - react",
      '  - "@react-native/*"',
      '  - "lodash@^4.17.21"',
      "npmScopes:",
      "  internal:",
      "    npmMinimalAgeGate: 0",
      "  vendor:",
      "    npmMinimalAgeGate: 10d",
      "",
    ].join("\n");
    expect(
      await gates({ ".yarnrc.yml": yarnrc }, [
        "react@19.3.0",
        "react-dom@19.3.0",
        "@react-native/metro-config@0.80.1",
        "lodash@4.17.23",
        "lodash@5.0.0",
        "@internal/tool@1.0.0",
        "@vendor/sdk@2.0.0",
      ]),
    ).toEqual([
      "react@19.3.0: none",
      "react-dom@19.3.0: 4320m npmMinimalAgeGate: 3d in .yarnrc.yml",
      "@react-native/metro-config@0.80.1: none",
      "lodash@4.17.23: none",
      "lodash@5.0.0: 4320m npmMinimalAgeGate: 3d in .yarnrc.yml",
      "@internal/tool@1.0.0: none",
      "@vendor/sdk@2.0.0: 14400m npmScopes.vendor.npmMinimalAgeGate in .yarnrc.yml",
    ]);
  });
});

describe("bun's minimumReleaseAgeExcludes", () => {
  it("lets through exact names, listed on one line or several, never a pattern", async () => {
    const bunfig = [
      "[install]",
      "minimumReleaseAge = 259200 # 3 days",
      "minimumReleaseAgeExcludes = [",
      "  # first-party packages, published by our CI",
      '  "@acme/core",',
      "  'typescript', \"@acme/*\"",
      "]",
      "[test]",
      'preload = ["x"]',
      "",
    ].join("\n");
    expect(
      await gates({ "bunfig.toml": bunfig }, [
        "@acme/core@2.0.0",
        "typescript@6.0.3",
        "@acme/ui@1.0.0",
        "x@1.0.0",
      ]),
    ).toEqual([
      "@acme/core@2.0.0: none",
      "typescript@6.0.3: none",
      "@acme/ui@1.0.0: 4320m minimumReleaseAge = 259200 in bunfig.toml [install]",
      "x@1.0.0: 4320m minimumReleaseAge = 259200 in bunfig.toml [install]",
    ]);
  });
});

describe("choosing versions under an exempting gate", () => {
  const NOW = Date.parse("2026-12-01T00:00:00Z");
  const doc = (name: string): Packument => ({
    name,
    "dist-tags": { latest: "1.1.0" },
    versions: { "1.0.0": { version: "1.0.0" }, "1.1.0": { version: "1.1.0" } },
    time: {
      "1.0.0": new Date(NOW - 300 * DAY).toISOString(),
      "1.1.0": new Date(NOW - 2 * DAY).toISOString(),
    },
  });

  it("proposes the exempt package's young release and passes over the other's, saying why", async () => {
    const dir = await project({
      "pnpm-workspace.yaml": "minimumReleaseAge: 10080\nminimumReleaseAgeExclude: ['@acme/*']\n",
    });
    const releaseAge = await readReleaseAge(dir, { options: {} });
    const policy = {
      updateTypes: ["patch", "minor", "major"] as const,
      cooldownMs: DAY,
      ignore: [],
      now: NOW,
      releaseAge,
    };
    expect(chooseTargets(doc("@acme/ui"), "1.0.0", policy).nonMajor?.version).toBe("1.1.0");
    const held = chooseTargets(doc("vite"), "1.0.0", policy);
    expect(held.nonMajor).toBeUndefined();
    expect(held.passedOver.map((p) => `${p.version}: ${p.reason}`)).toEqual([
      "1.1.0: released 2 days ago; the package manager refuses it before 7 days (minimumReleaseAge: 10080 in pnpm-workspace.yaml)",
    ]);
  });
});
