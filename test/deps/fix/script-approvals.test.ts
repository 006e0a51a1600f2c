import { describe, expect, it } from "vitest";
import { scriptApprovalsAdded } from "../../../src/deps/fix/script-approvals.js";

const change = (path: string, before: string | null, after: string | null) => ({
  path,
  before: before === null ? null : Buffer.from(before),
  after: after === null ? null : Buffer.from(after),
});

describe("scriptApprovalsAdded", () => {
  it("names each approval a fix adds, in every tool's setting, and nothing it keeps or takes out", () => {
    const found = scriptApprovalsAdded([
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

  it("is empty for a fix that leaves the settings as they were", () => {
    const same = JSON.stringify({ allowScripts: { a: true }, dependencies: { x: "1.0.0" } });
    const edited = JSON.stringify({ allowScripts: { a: true }, dependencies: { x: "2.0.0" } });
    expect(scriptApprovalsAdded([change("package.json", same, edited)])).toEqual([]);
    expect(scriptApprovalsAdded([change("package.json", "{not json", "{still not")])).toEqual([]);
  });
});
