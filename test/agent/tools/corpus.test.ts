import { readdir, readFile, symlink, truncate, utimes } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPolicyCheck, loadPolicyRules } from "../../../src/agent/policy/policy.js";
import type { PolicyCheck } from "../../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { createToolRegistry, executeToolCall } from "../../../src/agent/tools/registry.js";
import { CATEGORIES, type Call, type CorpusCase } from "./corpus/case.js";
import { corpus } from "./corpus/index.js";
import { createWorkspace, type TestWorkspace } from "./tool-context.js";

const registry = createToolRegistry(defaultTools());
const allowAll: PolicyCheck = () => ({ allow: true });

/**
 * An error the model can act on names what to use next: a tool or one of
 * the tools' arguments. The issue's target is that (almost) every error does.
 */
const NEXT_STEP =
  /\b(read_file|write_file|edit_file|list_files|grep_search|run_shell|old_string|new_string|replace_all|file_path|offset|limit|pattern|path|include|content)\b/;

async function filesIn(root: string, dir = ""): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name === ".git" && dir === "") continue;
    if (entry.isDirectory()) {
      for (const [path, content] of await filesIn(root, rel)) found.set(path, content);
    } else if (entry.isFile()) {
      found.set(rel, await readFile(join(root, rel)));
    }
  }
  return found;
}

function withRoot(value: unknown, root: string): unknown {
  if (typeof value === "string") return value.split("$ROOT").join(root);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRoot(v, root)]));
  }
  return value;
}

async function setUp(ws: TestWorkspace, c: CorpusCase): Promise<void> {
  for (const [path, content] of Object.entries(c.files ?? {})) await ws.write(path, content);
  for (const [path, size] of Object.entries(c.sparse ?? {})) {
    await ws.write(path, "");
    await truncate(join(ws.root, path), size);
  }
  for (const [path, target] of Object.entries(c.links ?? {})) {
    await symlink(target.split("$ROOT").join(ws.root), join(ws.root, path));
  }
  if (c.git) {
    ws.git("add", "-A");
    ws.git("commit", "-q", "--allow-empty", "-m", "initial");
  }
}

async function replay(
  ws: TestWorkspace,
  c: CorpusCase,
  check: PolicyCheck,
  call: Call,
  step: number,
): Promise<void> {
  if (call.tool === "external-change" && "path" in call) {
    await ws.write(call.path, call.content);
    const later = new Date(Date.now() + 60_000);
    await utimes(join(ws.root, call.path), later, later);
    return;
  }
  if (!("input" in call)) throw new Error(`case "${c.name}": malformed call ${step}`);
  const result = await executeToolCall(
    registry,
    { id: `call-${step}`, name: call.tool, input: withRoot(call.input, ws.root) },
    ws.ctx,
    check,
  );
  const label = `call ${step} (${call.tool}) answered:\n${result.content}`;
  expect(result.content, `${label}\n-- shows the host path`).not.toContain(ws.root);
  if (call.error) {
    expect(result.isError, `${label}\n-- should have failed`).toBe(true);
    expect(result.content, `${label}\n-- names no next step`).toMatch(NEXT_STEP);
    for (const want of call.error) expect(result.content, label).toMatch(pattern(want));
  } else {
    expect(result.isError, `${label}\n-- should have succeeded`).toBe(false);
    for (const want of call.output ?? []) expect(result.content, label).toMatch(pattern(want));
  }
  for (const unwanted of call.absent ?? []) {
    expect(result.content, label).not.toMatch(pattern(unwanted));
  }
  if (call.exactly !== undefined) expect(result.content, label).toBe(call.exactly);
}

function pattern(want: string | RegExp): RegExp {
  return typeof want === "string" ? new RegExp(want.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : want;
}

async function checkFiles(ws: TestWorkspace, c: CorpusCase): Promise<void> {
  const expected = new Map<string, Buffer>();
  for (const [path, content] of Object.entries(c.files ?? {})) {
    expected.set(path, Buffer.from(content));
  }
  for (const [path, content] of Object.entries(c.expect ?? {})) {
    if (content === null) expected.delete(path);
    else expected.set(path, Buffer.from(content));
  }
  const actual = await filesIn(ws.root);
  for (const path of Object.keys(c.sparse ?? {})) actual.delete(path);
  const show = (files: Map<string, Buffer>) =>
    Object.fromEntries(
      [...files].sort().map(([path, content]) => [path, content.toString("utf8")]),
    );
  expect(show(actual)).toEqual(show(expected));
}

describe("tool corpus", () => {
  it("has at least 150 cases, every category represented", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(150);
    const names = new Set<string>();
    for (const c of corpus) {
      expect(names.has(c.name), `duplicate case name "${c.name}"`).toBe(false);
      names.add(c.name);
    }
    for (const category of CATEGORIES) {
      expect(corpus.filter((c) => c.category === category).length, category).toBeGreaterThanOrEqual(
        4,
      );
    }
  });

  it.each(corpus.map((c) => [`${c.category}: ${c.name}`, c] as const))("%s", async (_label, c) => {
    // run_shell is tracked as in the agent loop: what it changes is stale until read again.
    const workspace = await createWorkspace({ git: c.git ?? false, snapshots: true });
    try {
      await setUp(workspace, c);
      const check = c.policy
        ? createPolicyCheck(await loadPolicyRules({ preset: c.policy }, { root: workspace.root }))
        : allowAll;
      for (const [i, call] of c.calls.entries()) {
        await replay(workspace, c, check, call, i + 1);
      }
      await checkFiles(workspace, c);
    } finally {
      await workspace.cleanup();
    }
  });
});
