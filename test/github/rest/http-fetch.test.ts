import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import { httpFetch } from "../../../src/github/rest/http-fetch.js";
import { isTransientFailure } from "../../../src/kernel/transient-failure.js";

/** What a loopback server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A loopback server answering with `handle`; its base URL and the requests it saw. */
async function serve(
  handle: (req: Seen, res: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(parts).toString("utf8"),
      };
      seen.push(request);
      handle(request, res);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("httpFetch", () => {
  it("sends the method, headers and a string body, and reads the answer as fetch gives it", async () => {
    const api = await serve((_req, res) => {
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.writeHead(201, "Created", { "Content-Type": "application/json", "X-Id": "7" });
      res.end('{"id":7,"name":"é"}');
    });
    const answer = await httpFetch(`${api.url}/repos/o/r/issues?x=1`, {
      method: "post",
      headers: { authorization: "token t", "content-type": "application/json" },
      body: JSON.stringify({ title: "é" }),
    });
    expect(api.seen[0]).toMatchObject({
      method: "POST",
      url: "/repos/o/r/issues?x=1",
      body: '{"title":"é"}',
    });
    expect(api.seen[0]?.headers).toMatchObject({
      authorization: "token t",
      // Bytes, not characters: "é" is two.
      "content-length": "14",
    });
    expect(answer).toMatchObject({
      status: 201,
      statusText: "Created",
      ok: true,
      redirected: false,
    });
    expect(answer.url).toBe(`${api.url}/repos/o/r/issues?x=1`);
    expect(answer.headers.get("Content-Type")).toBe("application/json");
    expect(answer.headers.has("x-id")).toBe(true);
    // Lower-case names, sorted, a repeated header joined, as Octokit reads them by iterating.
    const names = [...answer.headers].map(([name]) => name);
    expect(names).toEqual([...names].sort());
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      "set-cookie": "a=1, b=2",
      "x-id": "7",
    });
    expect(await answer.json()).toEqual({ id: 7, name: "é" });
    const bytes = await answer.arrayBuffer();
    expect(bytes).toBeInstanceOf(ArrayBuffer);
    expect(Buffer.from(bytes).toString("utf8")).toBe('{"id":7,"name":"é"}');
    expect(await new Response(answer.body).text()).toBe('{"id":7,"name":"é"}');
  });

  it("follows a redirect to another origin without the authorization header", async () => {
    const storage = await serve((_req, res) => res.end("the log"));
    const api = await serve((_req, res) => {
      res.writeHead(302, { location: `${storage.url}/logs/1?sig=x` });
      res.end();
    });
    const answer = await httpFetch(`${api.url}/repos/o/r/actions/jobs/1/logs`, {
      headers: { authorization: "token secret", accept: "application/vnd.github+json" },
    });
    expect(answer).toMatchObject({
      status: 200,
      redirected: true,
      url: `${storage.url}/logs/1?sig=x`,
    });
    expect(await answer.text()).toBe("the log");
    expect(api.seen[0]?.headers.authorization).toBe("token secret");
    expect(storage.seen[0]?.headers.authorization).toBeUndefined();
    expect(storage.seen[0]?.headers.accept).toBe("application/vnd.github+json");
  });

  it("keeps the authorization header on the same origin, and turns a POST into a GET after a 303", async () => {
    const api = await serve((req, res) => {
      if (req.url === "/start") {
        res.writeHead(303, { location: "/next" });
        res.end();
      } else res.end(`${req.method} ${req.body.length}`);
    });
    const answer = await httpFetch(`${api.url}/start`, {
      method: "POST",
      headers: { authorization: "token t", "content-type": "application/json" },
      body: "{}",
    });
    expect(await answer.text()).toBe("GET 0");
    expect(api.seen[1]?.headers.authorization).toBe("token t");
    expect(api.seen[1]?.headers["content-type"]).toBeUndefined();
  });

  it("keeps the method and body through a 307", async () => {
    const api = await serve((req, res) => {
      if (req.url === "/start") {
        res.writeHead(307, { location: "/next" });
        res.end();
      } else res.end(`${req.method} ${req.body}`);
    });
    const answer = await httpFetch(`${api.url}/start`, { method: "PATCH", body: "{}" });
    expect(await answer.text()).toBe("PATCH {}");
  });

  it("gives a redirect itself when asked (manual), refuses it (error), and stops an endless one", async () => {
    const api = await serve((req, res) => {
      const asked = new URL(req.url, "http://here");
      res.writeHead(301, { location: `${asked.pathname}x${asked.search}` });
      res.end();
    });
    const manual = await httpFetch(`${api.url}/a`, { redirect: "manual" });
    expect(manual.status).toBe(301);
    expect(manual.headers.get("location")).toBe("/ax");
    const refused = await httpFetch(`${api.url}/a?sig=secret`, { redirect: "error" }).catch(
      (error: Error) => error.message,
    );
    // Without the query: a storage host's redirect carries a signature.
    expect(refused).toBe(`${api.url}/a redirects to ${api.url}/ax`);
    await expect(httpFetch(`${api.url}/a`)).rejects.toThrow("too many redirects");
    // The first request and fetch's twenty redirects.
    expect(api.seen.filter((req) => req.url.startsWith("/a")).length).toBe(2 + 21);
  });

  it("stops when its signal aborts, with the AbortError Octokit passes on", async () => {
    const api = await serve(() => {
      // Never answers.
    });
    const stopper = new AbortController();
    const answer = httpFetch(`${api.url}/slow`, { signal: stopper.signal });
    setTimeout(() => stopper.abort(), 20);
    await expect(answer).rejects.toMatchObject({ name: "AbortError" });
  });

  it("fails on an answer cut short, as a connection that broke (the job retries it)", async () => {
    const api = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const failed = await httpFetch(`${api.url}/cut`).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: "ECONNRESET" });
    expect(isTransientFailure(failed)).toBe(true);
  });

  it("hands a body it does not send itself (a stream) to the global fetch", async () => {
    const api = await serve((req, res) => res.end(`got ${req.body}`));
    const answer = await httpFetch(`${api.url}/upload`, {
      method: "POST",
      body: ReadableStream.from([new TextEncoder().encode("streamed")]),
      // fetch asks for it with a stream body.
      duplex: "half",
    } as Parameters<typeof httpFetch>[1]);
    expect(await answer.text()).toBe("got streamed");
  });
});

describe("Octokit over httpFetch", () => {
  const client = (baseUrl: string) =>
    new Octokit({ baseUrl, auth: "ghs_token", request: { fetch: httpFetch, retries: 0 } });

  it("reads an answer, and throws GitHub's refusal with its status and message", async () => {
    const api = await serve((req, res) => {
      if (req.url === "/repos/o/r") {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8", etag: '"e"' });
        res.end('{"full_name":"o/r"}');
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"message":"Not Found","documentation_url":"https://docs"}');
      }
    });
    const { data, headers, status } = await client(api.url).rest.repos.get({
      owner: "o",
      repo: "r",
    });
    expect(status).toBe(200);
    expect(data.full_name).toBe("o/r");
    expect(headers.etag).toBe('"e"');
    expect(api.seen[0]?.headers.authorization).toBe("token ghs_token");
    await expect(
      client(api.url).rest.repos.get({ owner: "o", repo: "gone" }),
    ).rejects.toMatchObject({
      status: 404,
      message: "Not Found - https://docs",
    });
  });

  it("throws a connection that failed as a transient failure (the job goes back to the queue)", async () => {
    const api = await serve(() => {});
    const url = api.url;
    await new Promise((done) => servers.splice(0)[0]?.close(done));
    const failed = await client(url)
      .rest.repos.get({ owner: "o", repo: "r" })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ status: 500, message: expect.stringContaining("ECONNREFUSED") });
    expect(isTransientFailure(failed)).toBe(true);
  });
});
