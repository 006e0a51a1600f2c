import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import {
  FetchHeaders,
  httpFetch,
  NoFormData,
  streamingFetch,
} from "../../../src/github/rest/http-fetch.js";
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

describe("streamingFetch", () => {
  /** A server that sends `first`, then the rest when `go` is called (or never). */
  async function twoParts(first: string) {
    let go: (rest: ((res: ServerResponse) => void) | undefined) => void = () => {};
    const api = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(first);
      go = (rest) => rest?.(res);
    });
    return { api, finish: (rest: (res: ServerResponse) => void) => go(rest) };
  }

  it("hands the answer over at its headers and streams its body as it arrives", async () => {
    const { api, finish } = await twoParts("event: a\n\n");
    const answer = await streamingFetch(`${api.url}/v1/messages`, {
      method: "POST",
      headers: new FetchHeaders({ "X-Api-Key": "k", "content-type": "application/json" }),
      body: '{"stream":true}',
    });
    expect(answer).toMatchObject({ status: 200, ok: true });
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    expect(api.seen[0]).toMatchObject({ method: "POST", body: '{"stream":true}' });
    expect(api.seen[0]?.headers["x-api-key"]).toBe("k");
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    // The first part is readable while the server still holds the rest.
    const part = await reader.read();
    expect(Buffer.from(part.value ?? []).toString("utf8")).toBe("event: a\n\n");
    finish((res) => res.end("event: b\n\n"));
    const rest: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest.push(Buffer.from(next.value).toString("utf8"));
    }
    expect(rest.join("")).toBe("event: b\n\n");
  });

  it("reads a refusal's body as text", async () => {
    const api = await serve((_req, res) => {
      res.writeHead(529, { "content-type": "application/json", "retry-after": "2" });
      res.end('{"type":"error","error":{"type":"overloaded_error"}}');
    });
    const answer = await streamingFetch(`${api.url}/v1/messages`, { method: "POST", body: "{}" });
    expect(answer).toMatchObject({ status: 529, ok: false });
    expect(answer.headers.get("retry-after")).toBe("2");
    expect(await answer.json()).toEqual({ type: "error", error: { type: "overloaded_error" } });
  });

  it("errors the body, not the fetch, when the connection breaks mid-stream", async () => {
    const { api, finish } = await twoParts("event: a\n\n");
    const answer = await streamingFetch(`${api.url}/v1/messages`, { method: "POST", body: "{}" });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    finish((res) => res.socket?.destroy());
    await expect(reader.read()).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("errors the body with an AbortError when its signal aborts mid-stream", async () => {
    const { api } = await twoParts("event: a\n\n");
    const stopper = new AbortController();
    const answer = await streamingFetch(`${api.url}/v1/messages`, {
      method: "POST",
      body: "{}",
      signal: stopper.signal,
    });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    stopper.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("follows a redirect as httpFetch does, and streams the answer it leads to", async () => {
    const target = await serve((_req, res) => res.end("data: moved\n\n"));
    const first = await serve((_req, res) => {
      res.writeHead(307, { location: `${target.url}/v1/messages` });
      res.end();
    });
    const answer = await streamingFetch(`${first.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: "{}",
    });
    expect(answer.redirected).toBe(true);
    expect(await answer.text()).toBe("data: moved\n\n");
    expect(target.seen[0]).toMatchObject({ method: "POST", body: "{}" });
    expect(target.seen[0]?.headers.authorization).toBeUndefined();
  });
});

describe("FetchHeaders, the Headers the Action's bundle gives the Anthropic SDK", () => {
  it("keeps names in lower case, lists them sorted and joins a repeated one, as fetch's Headers", () => {
    const headers = new FetchHeaders({ "X-B": "2", "x-a": " 1 " });
    headers.append("X-B", "3");
    headers.set("Content-Type", "application/json");
    expect(headers.get("x-b")).toBe("2, 3");
    expect(headers.get("X-A")).toBe("1");
    expect(headers.has("CONTENT-TYPE")).toBe(true);
    headers.delete("x-a");
    expect([...headers]).toEqual([
      ["content-type", "application/json"],
      ["x-b", "2, 3"],
    ]);
    expect([...headers]).toEqual([...new Headers([...headers])]);
    expect([...headers.keys()]).toEqual(["content-type", "x-b"]);
    expect([...headers.values()]).toEqual(["application/json", "2, 3"]);
    const seen: string[] = [];
    headers.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(["content-type=application/json", "x-b=2, 3"]);
  });

  it("is made from a plain object, pairs, another FetchHeaders or the global Headers", () => {
    const expected = [
      ["a", "1"],
      ["b", "2"],
    ];
    expect([...new FetchHeaders({ b: "2", a: "1" })]).toEqual(expected);
    expect([
      ...new FetchHeaders([
        ["B", "2"],
        ["a", "1"],
      ]),
    ]).toEqual(expected);
    expect([...new FetchHeaders(new FetchHeaders({ a: "1", b: "2" }))]).toEqual(expected);
    expect([...new FetchHeaders(new Headers({ A: "1", b: "2" }))]).toEqual(expected);
    expect(() => new FetchHeaders([["a"] as unknown as [string, string]])).toThrow(TypeError);
  });

  it("stands beside a FormData nobody makes: a body is never one", () => {
    expect(() => new (NoFormData as unknown as new () => unknown)()).toThrow(
      /sends no multipart forms/,
    );
    expect({} instanceof NoFormData).toBe(false);
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
