import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyCheck, loadPolicyRules } from "../../../src/agent/policy/policy.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { createToolRegistry, executeToolCall } from "../../../src/agent/tools/registry.js";
import { createReviewCommentTool } from "../../../src/thread/kinds/review-tool.js";
import { createWorkspace, type TestWorkspace } from "../../agent/tools/tool-context.js";

const PATCH = [
  "@@ -1,3 +1,4 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  "+const c = 4;",
  " module.exports = { a, b };",
].join("\n");
const FILE = "const a = 1;\nconst b = 3;\nconst c = 4;\nmodule.exports = { a, b };\n";

describe("add_review_comment", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
    await ws.write("src/a.js", FILE);
  });
  afterEach(() => ws.cleanup());

  const scope = { files: [{ filename: "src/a.js", patch: PATCH }] };
  const setUp = async () => {
    const review = createReviewCommentTool({ ...scope, pullFiles: scope.files });
    const registry = createToolRegistry([...defaultTools(), review.tool]);
    const rules = await loadPolicyRules(
      { preset: "read-only" },
      { root: ws.root, tools: registry.tools },
    );
    const check = createPolicyCheck(rules);
    const call = (input: Record<string, unknown>) =>
      executeToolCall(registry, { id: "c", name: "add_review_comment", input }, ws.ctx, check);
    return { review, call };
  };

  it("is allowed under the read-only preset and keeps what it accepted", async () => {
    const { review, call } = await setUp();
    const result = await call({ path: "./src/a.js", line: 2, body: "Why 3?", side: "right" });
    expect(result).toEqual({
      content:
        "Added a comment on src/a.js line 2 (1 so far). It is posted with the review when you finish; your final answer is the review's summary.",
      isError: false,
    });
    expect(review.comments()).toEqual([
      { path: "src/a.js", line: 2, side: "RIGHT", body: "Why 3?" },
    ]);
  });

  it("refuses a line outside the diff at once, naming the hunk", async () => {
    const { review, call } = await setUp();
    const result = await call({ path: "src/a.js", line: 9, body: "x" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("@@ -1,3 +1,4 @@ (new lines 1-4)");
    expect(result.content).toContain("Nothing was added.");
    expect(review.comments()).toEqual([]);
  });

  it("takes a suggestion that replaces exactly its lines, and refuses one that repeats a neighbour", async () => {
    const { review, call } = await setUp();
    const withContext = await call({
      path: "src/a.js",
      line: 2,
      body: "Keep 2.",
      suggestion: "const a = 1;\nconst b = 2;",
    });
    expect(withContext.isError).toBe(true);
    expect(withContext.content).toContain(
      "the suggestion starts with line 1 (`const a = 1;`), which it does not replace",
    );
    expect(withContext.content).toContain("set start_line to 1");
    const trailing = await call({
      path: "src/a.js",
      start_line: 2,
      line: 3,
      body: "One line.",
      suggestion: "const b = 2, c = 4;\nmodule.exports = { a, b };\n",
    });
    expect(trailing.content).toContain("ends with line 4");
    const same = await call({ path: "src/a.js", line: 3, body: "x", suggestion: "const c = 4;" });
    expect(same.content).toContain("would change nothing");
    const good = await call({
      path: "src/a.js",
      line: 2,
      body: "Keep 2.",
      suggestion: "const b = 2;",
    });
    expect(good.isError).toBe(false);
    expect(review.comments()).toEqual([
      { path: "src/a.js", line: 2, body: "Keep 2.", suggestion: "const b = 2;" },
    ]);
  });
});
