import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { evaluate, loadPolicyRules } from "../../src/agent/policy/policy.js";
import { defineTool } from "../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../src/agent/tools/index.js";
import {
  changedWorkflowFiles,
  workflowRules,
  workflowsBlocked,
  workflowsRefusal,
} from "../../src/kernel/workflow-files.js";
import { gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";

const patchTool = defineTool({
  name: "apply_patch",
  kind: "write",
  pathFields: ["file_path"],
  description: "Applies a patch to one file.",
  input: z.object({ file_path: z.string(), patch: z.string() }),
  summarize: (args) => `apply_patch ${args.file_path}`,
  run: async () => "applied",
});

describe("workflowRules", () => {
  it("denies .github/workflows/** to every tool that writes files, from the tools' facts", () => {
    expect(workflowRules()).toEqual([
      "write_file: .github/workflows/**",
      "edit_file: .github/workflows/**",
    ]);
    // A new write tool is covered without naming it here; read, search and shell tools are not.
    expect(workflowRules([...defaultTools(), patchTool])).toContain(
      "apply_patch: .github/workflows/**",
    );
  });

  it("gates the agent's write tools through the policy, leaving other paths alone", async () => {
    const dir = makeTempDir("pw-wf-policy-");
    try {
      const tools = [...defaultTools(), patchTool];
      const { policy } = workflowsBlocked({ policy: { preset: "default", allow: [], deny: [] } });
      const rules = await loadPolicyRules(
        { ...policy, deny: workflowRules(tools) },
        { root: dir.path, tools, packageScripts: [] },
      );
      const call = (tool: string, file_path: string) =>
        evaluate({ tool, input: { file_path, content: "x", patch: "x" } }, rules);
      expect(call("apply_patch", ".github/workflows/ci.yml")).toMatchObject({ allow: false });
      expect(call("write_file", ".github/workflows/ci.yml")).toMatchObject({
        allow: false,
        reason: expect.stringContaining("deny rule `write_file: .github/workflows/**`"),
      });
      expect(call("write_file", ".github/dependabot.yml")).toEqual({ allow: true });
    } finally {
      dir.remove();
    }
  });
});

describe("changedWorkflowFiles", () => {
  let tmp: TempDir;
  let env: Record<string, string>;
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: tmp.path, env, encoding: "utf8" }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(join(tmp.path, path, ".."), { recursive: true });
    writeFileSync(join(tmp.path, path), text);
  };
  const commit = (message: string) => {
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", message);
    return git("rev-parse", "HEAD");
  };
  let start: string;
  let base: string;

  beforeAll(() => {
    tmp = makeTempDir("pw-wf-");
    env = gitTestEnv(join(tmp.path, ".home"));
    git("init", "-q");
    write(".github/workflows/ci.yml", "on: push\n");
    write(".github/workflows/old.yml", "on: pull_request\n");
    write("src/a.js", "1\n");
    start = commit("start");
    // A base that changed ci.yml, merged into the branch, then the job's own changes.
    git("checkout", "-q", "-b", "base");
    write(".github/workflows/ci.yml", "on: [push]\n");
    base = commit("base");
    git("checkout", "-q", "-");
    git("merge", "-q", "--no-edit", "base");
    git("mv", ".github/workflows/old.yml", ".github/workflows/renamed.yml");
    write("src/a.js", "2\n");
    commit("job");
  });
  afterAll(() => tmp.remove());

  it("lists the workflow files the commits change, a rename as both names", async () => {
    expect(await changedWorkflowFiles(tmp.path, env, [start])).toEqual([
      ".github/workflows/ci.yml",
      ".github/workflows/old.yml",
      ".github/workflows/renamed.yml",
    ]);
  });

  it("leaves out what a merged base brought in", async () => {
    expect(await changedWorkflowFiles(tmp.path, env, [start, base])).toEqual([
      ".github/workflows/old.yml",
      ".github/workflows/renamed.yml",
    ]);
  });

  it("finds nothing when no workflow file changed", async () => {
    expect(await changedWorkflowFiles(tmp.path, env, ["HEAD"])).toEqual([]);
  });
});

describe("workflowsRefusal", () => {
  it("names the files and the missing permission", () => {
    const message = workflowsRefusal([".github/workflows/ci.yml"]);
    expect(message).toContain("`.github/workflows/ci.yml`");
    expect(message).toContain("`workflows: write`");
    expect(message).toMatch(/^Nothing was pushed/);
  });
});
