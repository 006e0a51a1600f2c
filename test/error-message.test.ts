import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RequestError } from "@octokit/request-error";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { errorMessage } from "../src/error-message.js";
import { fetchThrough, makeThrowawayCa, startInspectingProxy } from "./helpers/tls-proxy.js";

describe("errorMessage", () => {
  it("names the GitHub call a request error answered: method, path and status", () => {
    const error = new RequestError("Not Found - https://docs.github.com/rest", 404, {
      request: {
        method: "GET",
        url: "https://api.github.com/repos/octo-org/demo/pulls/13?per_page=1",
        headers: {},
      },
      response: {
        status: 404,
        url: "https://api.github.com/repos/octo-org/demo/pulls/13?per_page=1",
        headers: {},
        data: { message: "Not Found" },
      },
    });
    expect(errorMessage(error)).toBe(
      "GitHub answered 404 to GET /repos/octo-org/demo/pulls/13?per_page=1: Not Found - https://docs.github.com/rest",
    );
  });

  it("says GitHub did not answer a request that got no answer (Octokit's status 500 without a response)", () => {
    const error = new RequestError("unable to verify the first certificate", 500, {
      request: { method: "GET", url: "https://api.github.com/repos/o/r", headers: {} },
    });
    expect(errorMessage(error)).toBe(
      "GitHub did not answer GET /repos/o/r: unable to verify the first certificate",
    );
  });

  it("names what stopped a request that got no answer when Octokit's message does not (a proxy asking for a password)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pw-company-ca-"));
    const proxy = await startInspectingProxy({
      ca: await makeThrowawayCa(dir),
      routes: { "api.github.com:443": "http://127.0.0.1:1" },
      credentials: { user: "corp", password: "secret" },
    });
    const through = fetchThrough(proxy.url);
    try {
      const octokit = new Octokit({
        log: { debug() {}, info() {}, warn() {}, error() {} },
        request: { fetch: through.fetch },
      });
      const error = await octokit.rest.repos.get({ owner: "o", repo: "r" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(errorMessage(error)).toBe(
        "GitHub did not answer GET /repos/o/r: Request was cancelled. (Proxy response (407) !== 200 when HTTP Tunneling)",
      );
    } finally {
      await through.close();
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is the message of any other error, and the text of anything else thrown", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage("plain")).toBe("plain");
  });
});
