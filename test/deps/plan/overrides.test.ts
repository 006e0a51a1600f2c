import { describe, expect, it } from "vitest";
import { overrideOf, readOverrides } from "../../../src/deps/plan/overrides.js";
import type { DepEntry } from "../../../src/deps/plan/project.js";

const dep = (name: string, spec: string, extra: Partial<DepEntry> = {}): DepEntry => ({
  name,
  spec,
  section: "dependencies",
  manifest: "package.json",
  ...extra,
});

/** Which of these dependencies each manager's overrides hold, by the override's key. */
function holds(
  manager: Parameters<typeof readOverrides>[0],
  manifest: Record<string, unknown>,
  deps: DepEntry[],
  workspace?: unknown,
): Record<string, string | undefined> {
  const overrides = readOverrides(manager, manifest, workspace);
  return Object.fromEntries(
    deps.map((d) => [
      `${d.name} ${d.spec}${d.catalog ? " (catalog)" : ""}${d.section === "peerDependencies" ? " (peer)" : ""}`,
      overrideOf(overrides, d, d.spec.replace(/^npm:/, ""))?.key,
    ]),
  );
}

describe("the project's overrides", () => {
  it("reads npm's: top-level names, name@range, the nested '.' form; $name and nested children hold nothing", () => {
    const manifest = {
      overrides: {
        a: "1.0.0",
        "b@^1.0.0": "1.2.0",
        c: { ".": "3.0.0", child: "1.0.0" },
        d: "$d",
        parent: { e: "1.0.0" },
      },
    };
    expect(
      holds("npm", manifest, [
        dep("a", "^1.1.0"),
        dep("b", "^1.1.0"),
        dep("b", "^2.0.0"),
        dep("c", "^3.1.0"),
        dep("d", "^1.0.0"),
        dep("e", "^1.0.0"),
      ]),
    ).toEqual({
      "a ^1.1.0": "a",
      "b ^1.1.0": "b@^1.0.0",
      "b ^2.0.0": undefined,
      "c ^3.1.0": "c",
      "d ^1.0.0": undefined,
      "e ^1.0.0": undefined,
    });
  });

  it("reads yarn 4's resolutions (name, **/name, a descriptor's exact range) and none of yarn 1's", () => {
    const manifest = {
      resolutions: {
        "**/a": "1.0.0",
        "@s/b": "2.0.0",
        "ts-node@^10.5.0": "patch:ts-node@npm:^10.5.0#./.yarn/patches/ts-node.patch",
        "parent/c": "1.0.0",
      },
    };
    const deps = [
      dep("a", "^1.1.0"),
      dep("@s/b", "^2.1.0"),
      dep("ts-node", "^10.5.0"),
      dep("ts-node", "^10.9.2"),
      dep("c", "^1.0.0"),
    ];
    expect(holds("yarn-berry", manifest, deps)).toEqual({
      "a ^1.1.0": "**/a",
      "@s/b ^2.1.0": "@s/b",
      "ts-node ^10.5.0": "ts-node@^10.5.0",
      "ts-node ^10.9.2": undefined,
      "c ^1.0.0": undefined,
    });
    expect(Object.values(holds("yarn-classic", manifest, deps)).every((k) => k === undefined)).toBe(
      true,
    );
  });

  it("reads pnpm's from pnpm-workspace.yaml and package.json; a selector holds what its range intersects", () => {
    const workspace = {
      overrides: { "@types/node@22": "^22.19.0", "a>b": "1.0.0", c: "-", d: "catalog:" },
    };
    const manifest = { pnpm: { overrides: { e: "1.0.0" } } };
    expect(
      holds(
        "pnpm",
        manifest,
        [
          dep("@types/node", "^22.20.0"),
          dep("@types/node", "^24.0.0"),
          dep("b", "^1.1.0"),
          dep("c", "^1.0.0"),
          dep("d", "^1.0.0"),
          dep("d", "^1.0.0", { catalog: "default", manifest: "pnpm-workspace.yaml" }),
          dep("e", "^1.1.0"),
          dep("e", "^1.1.0", { section: "peerDependencies" }),
        ],
        workspace,
      ),
    ).toEqual({
      "@types/node ^22.20.0": "@types/node@22",
      "@types/node ^24.0.0": undefined,
      "b ^1.1.0": undefined,
      "c ^1.0.0": "c",
      // Held in a manifest; the catalog's entry, where the version comes from, is free.
      "d ^1.0.0": "d",
      "d ^1.0.0 (catalog)": undefined,
      "e ^1.1.0": "e",
      // A peer range is what the package asks of its users.
      "e ^1.1.0 (peer)": undefined,
    });
  });

  it("reads no overrides from package.json's pnpm field when the project pins pnpm 11, which ignores it", () => {
    const manifest = (pin: string) => ({
      packageManager: pin,
      pnpm: { overrides: { e: "1.0.0" } },
    });
    const workspace = { overrides: { f: "2.0.0" } };
    const deps = [dep("e", "^1.1.0"), dep("f", "^2.1.0")];
    expect(holds("pnpm", manifest("pnpm@11.18.0"), deps, workspace)).toEqual({
      "e ^1.1.0": undefined,
      "f ^2.1.0": "f",
    });
    expect(holds("pnpm", manifest("pnpm@10.34.8"), deps, workspace)).toEqual({
      "e ^1.1.0": "e",
      "f ^2.1.0": "f",
    });
  });
});
