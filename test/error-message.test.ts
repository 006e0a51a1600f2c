import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { RequestError } from "@octokit/request-error";
import { Octokit } from "@octokit/rest";
import { ProxyAgent, fetch as undiciFetch } from "undici";
import { describe, expect, it } from "vitest";
import { errorMessage } from "../src/error-message.js";

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
    const proxy = createServer();
    proxy.on("connect", (_req, socket: Socket) => {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const dispatcher = new ProxyAgent(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    try {
      const octokit = new Octokit({
        log: { debug() {}, info() {}, warn() {}, error() {} },
        request: {
          fetch: (url: string, init: RequestInit) =>
            undiciFetch(url, { ...init, dispatcher } as never),
        },
      });
      const error = await octokit.rest.repos.get({ owner: "o", repo: "r" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(errorMessage(error)).toBe(
        "GitHub did not answer GET /repos/o/r: Request was cancelled. (Proxy response (407) !== 200 when HTTP Tunneling)",
      );
    } finally {
      await dispatcher.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("is the message of any other error, and the text of anything else thrown", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage("plain")).toBe("plain");
  });
});
