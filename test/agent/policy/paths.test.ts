import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodePolicyFs, resolveInWorkspace } from "../../../src/agent/policy/paths.js";
import { makePolicyWorkspace, type PolicyWorkspace } from "./workspace.js";

const root = "/work/ws";

describe("resolveInWorkspace (lexical)", () => {
  it.each([
    ["src/a.ts", { inside: true, relative: "src/a.ts", inGit: false, isRoot: false }],
    [".", { inside: true, relative: "", inGit: false, isRoot: true }],
    ["/work/ws/src", { inside: true, relative: "src", inGit: false, isRoot: false }],
    ["src/../lib", { inside: true, relative: "lib", inGit: false, isRoot: false }],
    [".git/config", { inside: true, relative: ".git/config", inGit: true, isRoot: false }],
    ["src/../.git", { inside: true, relative: ".git", inGit: true, isRoot: false }],
    [".GIT/HEAD", { inside: true, relative: ".GIT/HEAD", inGit: true, isRoot: false }],
    [".g*/hooks", { inside: true, relative: ".g*/hooks", inGit: true, isRoot: false }],
    ["[.]git", { inside: true, relative: "[.]git", inGit: true, isRoot: false }],
    ["src/.git-keep", { inside: true, relative: "src/.git-keep", inGit: false, isRoot: false }],
    ["*", { inside: true, relative: "*", inGit: false, isRoot: false }],
  ])("%j is inside", (written, expected) => {
    expect(resolveInWorkspace(written, root)).toEqual(expected);
  });

  it.each([
    "..",
    "../x",
    "src/../../x",
    "/etc/passwd",
    "/work/wsx/a",
    "~",
    "~/.ssh",
    ".?/x",
    "src/.*/../..",
    "e*/../x",
  ])("%j is outside", (written) => {
    expect(resolveInWorkspace(written, root)).toEqual({ inside: false });
  });
});

describe("resolveInWorkspace (with the filesystem)", () => {
  let workspace: PolicyWorkspace;
  beforeAll(async () => {
    workspace = await makePolicyWorkspace();
  });
  afterAll(() => workspace.remove());

  it("follows symlinks out of the workspace and into .git", () => {
    const fs = createNodePolicyFs();
    expect(resolveInWorkspace("escape/secret.txt", workspace.root, fs)).toEqual({ inside: false });
    expect(resolveInWorkspace("escape/not-there/yet", workspace.root, fs)).toEqual({
      inside: false,
    });
    expect(resolveInWorkspace("gitlink/hooks/new", workspace.root, fs)).toMatchObject({
      inside: true,
      inGit: true,
    });
    // The kernel follows `escape` before the `..`, so this names a file beside the link's target.
    expect(resolveInWorkspace("escape/../outside/secret.txt", workspace.root, fs)).toEqual({
      inside: false,
    });
    expect(resolveInWorkspace("src/../src/a.ts", workspace.root, fs)).toMatchObject({
      inside: true,
      relative: "src/a.ts",
    });
    expect(resolveInWorkspace("src/new/file.ts", workspace.root, fs)).toMatchObject({
      inside: true,
      relative: "src/new/file.ts",
      inGit: false,
    });
  });
});
