import { afterEach, describe, expect, it } from "vitest";
import { refusedUrl } from "../../src/job/job-mcp.js";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { TICKETS_SERVER_SOURCE } from "../helpers/mcp-stdio-server.js";
import { callTool } from "../helpers/model-script.js";

/**
 * MCP servers named in a repository's config, in an App job: the stdio
 * server runs in the job's sandbox, its tools are gated by the policy, a
 * server that cannot be used is reported on the tracking comment, and the
 * pull request lists the MCP tools the agent used.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

const CONFIG = `
mcp_servers:
  tickets:
    command: node
    args: [tools/tickets.mjs]
  internal:
    url: http://169.254.169.254/mcp
`;

describe("MCP servers in App jobs", () => {
  it("starts the repository's servers in the sandbox, gates their tools and reports them", async () => {
    harness = await startHarness({
      steps: [
        callTool("mcp__tickets__list_tickets", {}, { id: "list" }),
        callTool("mcp__tickets__close_ticket", { id: 7 }, { id: "close" }),
        ...fixAddSteps(),
      ],
      files: { "tools/tickets.mjs": TICKETS_SERVER_SOURCE },
      github: { configYaml: CONFIG },
    });
    await harness.probot.receive({
      id: "d1",
      name: "issue_comment",
      payload: issueComment(harness, "@agent fix this"),
    } as never);
    await harness.idle();

    const model = harness.models[0];
    expect(model?.requests[0]?.tools.map((t) => t.name)).toContain("mcp__tickets__list_tickets");
    const results = JSON.stringify(model?.requests.map((r) => r.messages.at(-1)));
    expect(results).toContain("#7 crash on empty input");
    expect(results).toMatch(/Denied by policy: `mcp__tickets__close_ticket`/);
    const [pull] = harness.github.pulls;
    expect(pull?.body).toContain("### MCP tools used");
    expect(pull?.body).toContain("`mcp__tickets__list_tickets`");
    expect(pull?.body).not.toContain("close_ticket");
    const comment = harness.github.comments.get(7)?.at(-1)?.body ?? "";
    expect(comment).toContain("MCP servers that did not start");
    expect(comment).toContain("`internal`");
    expect(comment).toContain("must use https");
  }, 60_000);
});

describe("refusedUrl", () => {
  it.each([
    ["http://docs.example.com/mcp", /https/],
    ["https://localhost/mcp", /host's own network/],
    ["https://127.0.0.1/mcp", /loopback/],
    ["https://10.1.2.3/mcp", /private/],
    ["https://169.254.169.254/latest", /link-local/],
    ["https://[::1]/mcp", /loopback/],
    ["https://[::ffff:192.168.0.1]/mcp", /private/],
    ["https://metadata.google.internal/", /own network/],
  ])("refuses %s", (url, why) => {
    expect(refusedUrl(url)).toMatch(why);
  });

  it("accepts public https servers", () => {
    expect(refusedUrl("https://docs.example.com/mcp")).toBeUndefined();
    expect(refusedUrl("https://8.8.8.8/mcp")).toBeUndefined();
  });
});
