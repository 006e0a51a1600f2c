import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { Resolve } from "../../src/agent/mcp/address-guard.js";
import { jobMcp, refusedUrl } from "../../src/kernel/mcp-servers.js";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { TICKETS_SERVER_SOURCE } from "../helpers/mcp-stdio-server.js";
import { callTool } from "../helpers/model-script.js";
import { realSandbox } from "../helpers/sandbox.js";
import { makeRepo } from "../helpers/temp-dir.js";

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
      // The App starts no repository MCP server unless its operator allows them.
      env: { PATCHWRIGHT_REPO_MCP: "true" },
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

/** A resolver answering from a table, recording the names it was asked. */
function resolver(table: Record<string, string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

describe("refusedUrl", () => {
  const resolve = resolver({
    "docs.example.com": ["93.184.216.34", "2606:4700::6810:85e5"],
    "metadata.example.com": ["169.254.169.254"],
    "intranet.example.com": ["93.184.216.34", "10.0.0.7"],
    "v6-local.example.com": ["fd12::7"],
    "v6-mapped.example.com": ["::ffff:192.168.0.1"],
    "any.example.com": ["0.0.0.0"],
  });

  it.each([
    ["http://docs.example.com/mcp", /must use https/],
    ["https://localhost/mcp", /host's own network/],
    ["https://127.0.0.1/mcp", /127\.0\.0\.1 is a loopback address/],
    ["https://10.1.2.3/mcp", /a private address/],
    ["https://169.254.169.254/latest", /a link-local address/],
    ["https://[::1]/mcp", /a loopback address/],
    ["https://[::ffff:192.168.0.1]/mcp", /a private address/],
    ["https://[fe80::1]/mcp", /a link-local address/],
    ["https://metadata.google.internal/", /own network/],
    ["https://metadata.example.com/mcp", /resolves to 169\.254\.169\.254, a link-local address/],
    ["https://intranet.example.com/mcp", /resolves to 10\.0\.0\.7, a private address/],
    ["https://v6-local.example.com/mcp", /resolves to fd12::7, a unique-local address/],
    ["https://v6-mapped.example.com/mcp", /resolves to ::ffff:192\.168\.0\.1, a private address/],
    ["https://any.example.com/mcp", /resolves to 0\.0\.0\.0, an unspecified address/],
    ["https://nowhere.example.com/mcp", /does not resolve \(ENOTFOUND\)/],
  ])("refuses %s", async (url, why) => {
    expect(await refusedUrl(url, resolve)).toMatch(why);
  });

  it("accepts https servers whose every address is public", async () => {
    expect(await refusedUrl("https://docs.example.com/mcp", resolve)).toBeUndefined();
    expect(await refusedUrl("https://8.8.8.8/mcp", resolve)).toBeUndefined();
    expect(resolve.calls).toContain("docs.example.com");
  });

  it("leaves a name this machine cannot resolve to the host's proxy, and nothing else", async () => {
    const proxy = { https: new URL("http://proxy.corp.test:3128"), noProxy: "internal.test" };
    expect(await refusedUrl("https://nowhere.example.com/mcp", resolve, proxy)).toBeUndefined();
    expect(await refusedUrl("https://intranet.example.com/mcp", resolve, proxy)).toMatch(
      /resolves to 10\.0\.0\.7, a private address/,
    );
    expect(await refusedUrl("https://localhost/mcp", resolve, proxy)).toMatch(/own network/);
    expect(await refusedUrl("https://mcp.internal.test/mcp", resolve, proxy)).toMatch(
      /does not resolve/,
    );
  });
});

describe("jobMcp", () => {
  it("reports a server whose name resolves to the host's network, and guards the others' connections", async () => {
    const dir = await makeRepo({ "README.md": "hi\n" });
    try {
      const table = {
        "docs.example.com": ["93.184.216.34"],
        "metadata.example.com": ["169.254.169.254"],
      };
      const resolve = resolver(table);
      const mcp = await jobMcp({
        servers: {
          docs: { url: "https://docs.example.com/mcp", headers: {}, timeout: 60 },
          meta: { url: "https://metadata.example.com/mcp", headers: {}, timeout: 60 },
        },
        env: { PATH: process.env.PATH },
        launcher: await realSandbox(),
        dir,
        resolve,
      });
      expect(mcp.servers.map((server) => server.name)).toEqual(["docs"]);
      expect(mcp.problems).toEqual([
        {
          server: "meta",
          message: expect.stringMatching(/resolves to 169\.254\.169\.254, a link-local address/),
        },
      ]);
      // The name now answers with loopback (DNS rebinding): the server's own fetch refuses it.
      table["docs.example.com"] = ["127.0.0.1"];
      const [docs] = mcp.servers;
      if (docs?.transport !== "http" || !docs.fetch) throw new Error("expected a guarded fetch");
      await expect(docs.fetch("https://docs.example.com/mcp")).rejects.toThrow(
        /refused to connect: docs\.example\.com resolves to 127\.0\.0\.1, a loopback address/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("keeps a server only the host's proxy can resolve when HTTPS_PROXY is set", async () => {
    const dir = await makeRepo({ "README.md": "hi\n" });
    try {
      const servers = { vendor: { url: "https://mcp.vendor.test/mcp", headers: {}, timeout: 60 } };
      const options = { servers, launcher: await realSandbox(), dir, resolve: resolver({}) };
      const direct = await jobMcp({ ...options, env: { PATH: process.env.PATH } });
      expect(direct.servers).toEqual([]);
      expect(direct.problems?.[0]?.message).toMatch(/mcp\.vendor\.test does not resolve/);
      const proxied = await jobMcp({
        ...options,
        env: { PATH: process.env.PATH, HTTPS_PROXY: "http://proxy.corp.test:3128" },
      });
      expect(proxied.problems).toEqual([]);
      expect(proxied.servers.map((server) => server.name)).toEqual(["vendor"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
