import { describe, expect, it } from "vitest";
import {
  type RepositoryJobRequest,
  renderRepositoryTask,
  titleFromPrompt,
} from "../../src/thread/run-repository-job.js";

describe("titleFromPrompt", () => {
  it("is the prompt's first line", () => {
    expect(titleFromPrompt("  Bump the copyright year\n\nIn every file header.")).toBe(
      "Bump the copyright year",
    );
  });

  it("cuts a long first line at a word", () => {
    const title = titleFromPrompt(
      "Rewrite every remaining callback in the storage layer to async and await, keeping the public API unchanged",
    );
    expect(title).toBe("Rewrite every remaining callback in the storage layer to async and…");
    expect(title.length).toBeLessThanOrEqual(72);
  });

  it("has something to say for an empty prompt", () => {
    expect(titleFromPrompt("   ")).toBe("Changes requested by a workflow");
  });
});

describe("renderRepositoryTask", () => {
  const request: RepositoryJobRequest = {
    trigger: "schedule",
    deliveryId: "1-1",
    repo: { owner: "octo-org", name: "demo", cloneUrl: "x", defaultBranch: "trunk" },
    instruction: "  Update the README badges.  ",
  };

  it("says where the agent is and what happens to its work, with the prompt last", () => {
    const task = renderRepositoryTask(request);
    expect(task).toContain("started on a schedule in the GitHub repository octo-org/demo");
    expect(task).toContain("a new branch made from `trunk`");
    expect(task.endsWith("The request:\n\nUpdate the README badges.")).toBe(true);
  });

  it("names a dispatch as such", () => {
    expect(renderRepositoryTask({ ...request, trigger: "workflow_dispatch" })).toContain(
      "started by a workflow dispatch",
    );
  });
});
