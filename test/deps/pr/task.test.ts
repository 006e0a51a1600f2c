import { describe, expect, it } from "vitest";
import { type PrBump, projectRoot } from "../../../src/deps/pr/bump-diff.js";
import { cannotFixNames, describeBump, movedNames } from "../../../src/deps/pr/task.js";
import type { Update } from "../../../src/deps/update.js";
import { handBackNote } from "../../../src/thread/kinds/dependency-pr.js";

const update = (name: string, from: string, to: string): Update => ({
  name,
  from,
  to,
  type: "major",
  locations: [{ manifest: "package.json", section: "dependencies", spec: from, newSpec: to, from }],
  links: {},
  newInstallScripts: [],
  passedOver: [],
});

const bump = (updates: Update[], overrideMoves: PrBump["overrideMoves"] = []): PrBump => ({
  updates,
  overrideMoves,
  manager: { name: "npm", lockfile: "package-lock.json", evidence: "package-lock.json" },
  lockfilePath: "package-lock.json",
  mergeBase: "0".repeat(40),
  root: "",
  unreviewedScripts: [],
});

describe("what the agent is told about another bot's bump", () => {
  it("lists each update, and asks for a `Cannot fix:` line only when there are several", () => {
    const one = describeBump("dependabot[bot]", bump([update("fx-greet", "1.0.0", "2.0.0")]));
    expect(one).toContain("opened by dependabot[bot]");
    expect(one).toContain("- fx-greet 1.0.0 -> 2.0.0 (major, package.json)");
    expect(one).not.toContain("Cannot fix:");
    const two = describeBump(
      "renovate[bot]",
      bump([update("fx-greet", "1.0.0", "2.0.0"), update("@scope/b", "1.0.0", "1.1.0")]),
    );
    expect(two).toContain("`Cannot fix: <package name>`");
    expect(describeBump("dependabot[bot]", bump([]))).toContain(
      "no dependency's version or override moved",
    );
  });

  it("says which override the pull request changed to move a package", () => {
    const said = describeBump(
      "renovate[bot]",
      bump(
        [update("fx-greet", "1.0.0", "2.0.0"), update("fx-util", "1.2.0", "1.3.0")],
        [
          {
            name: "fx-util",
            file: "web/pnpm-workspace.yaml",
            field: "overrides",
            path: ["overrides", "fx-util"],
            key: "fx-util",
            from: "1.2.0",
            to: "1.3.0",
          },
        ],
      ),
    );
    expect(said).toContain(
      `- fx-util's version is set by web/pnpm-workspace.yaml overrides: "fx-util" "1.2.0" -> "1.3.0"`,
    );
  });

  it("lists a package only an override moved, and counts it for `Cannot fix:`", () => {
    const pin = {
      name: "semver",
      file: "package.json",
      field: "overrides",
      path: ["overrides", "semver"],
      key: "semver",
      from: "7.5.2",
      to: "7.6.0",
    };
    const alone = bump([], [pin]);
    const said = describeBump("renovate[bot]", alone);
    expect(said).toContain(
      `- semver, which the project does not declare, through package.json overrides: "semver" "7.5.2" -> "7.6.0"`,
    );
    expect(said).not.toContain("Cannot fix:");
    const both = bump([update("fx-greet", "1.0.0", "2.0.0")], [pin]);
    expect(movedNames(both)).toEqual(["fx-greet", "semver"]);
    expect(describeBump("renovate[bot]", both)).toContain("`Cannot fix: <package name>`");
  });

  it("reads back only the packages the pull request updates", () => {
    const updates = [update("fx-greet", "1.0.0", "2.0.0"), update("@scope/b", "1.0.0", "1.1.0")];
    const answer = [
      "Fixed the greet rename.",
      "Cannot fix: @scope/b — its 1.1.0 needs a native module.",
      "cannot fix: `fx-greet`",
      "Cannot fix: left-pad",
      "I cannot fix everything: fx-greet is fine.",
    ].join("\n");
    const names = updates.map((u) => u.name);
    expect(cannotFixNames(answer, names).sort()).toEqual(["@scope/b", "fx-greet"]);
    expect(cannotFixNames("All fixed.", names)).toEqual([]);
  });

  it("reads the names as models write them, never a package the reason names", () => {
    const names = ["fx-greet", "fx-broken", "@scope/b", "fx-util"];
    const read = (answer: string) => cannotFixNames(answer, names).sort();
    expect(read("**Cannot fix**: `fx-broken` (1.1.0 throws on load)")).toEqual(["fx-broken"]);
    expect(read("## Cannot fix: fx-broken")).toEqual(["fx-broken"]);
    expect(read("- Cannot fix — fx-broken@1.1.0, it throws")).toEqual(["fx-broken"]);
    expect(read("Cannot fix: fx-broken, `@scope/b@1.1.0` and fx-util.")).toEqual([
      "@scope/b",
      "fx-broken",
      "fx-util",
    ]);
    // The reason mentions fx-greet, which the agent did fix.
    expect(read("Cannot fix: fx-broken because fx-greet 2 needs it at 1.0.0")).toEqual([
      "fx-broken",
    ]);
    expect(
      read(
        "Fixed fx-greet.\n\nCannot fix:\n- `fx-broken`: throws\n- @scope/b — native\n\nfx-util is fine.",
      ),
    ).toEqual(["@scope/b", "fx-broken"]);
    expect(read("I cannot fix the following packages:\n1. fx-broken\n2. fx-util")).toEqual([]);
    expect(read("Cannot fix the following packages:\n1. fx-broken\n2. fx-util")).toEqual([
      "fx-broken",
      "fx-util",
    ]);
    expect(read("Can’t fix: fx-util")).toEqual(["fx-util"]);
    expect(read("Cannot fix anything here.")).toEqual([]);
  });
});

describe("handing a pull request back to its bot", () => {
  it("names each bot's own way back", () => {
    expect(handBackNote("dependabot[bot]")).toContain("`@dependabot recreate`");
    expect(handBackNote("renovate[bot]")).toContain("rebase/retry box");
    expect(handBackNote("other-bot[bot]")).toContain("ask other-bot[bot] to recreate");
    for (const bot of ["dependabot[bot]", "renovate[bot]"]) {
      expect(handBackNote(bot)).toContain("keeps this one up to date");
    }
  });
});

describe("which project a bot's pull request touches", () => {
  it("is where its lockfile is, else its shallowest manifest's folder", () => {
    expect(projectRoot(["package.json", "package-lock.json"])).toBe("");
    expect(projectRoot(["web/package.json", "web/package-lock.json"])).toBe("web");
    // A workspace member's manifest and the workspace's lockfile: the workspace.
    expect(projectRoot(["packages/a/package.json", "pnpm-lock.yaml"])).toBe("");
    expect(projectRoot(["apps/site/package.json", "apps/site/sub/package.json"])).toBe("apps/site");
    expect(projectRoot([".npmrc"])).toBe("");
  });
});
