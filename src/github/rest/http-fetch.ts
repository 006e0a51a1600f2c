import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { addAbortSignal, Readable } from "node:stream";

/**
 * The Action's own HTTP clients, Octokit's and the Anthropic SDK's, send
 * through node:http and node:https instead of the global fetch: the global
 * fetch is undici, which Node 24 loads whole on the first use of any of its
 * globals (fetch, Headers, FormData...), 25-40 ms of the one thread that is
 * the Action's way to its first model request (measured on the 2-core VM),
 * against about 10 for node:https. With both, a run never loads undici.
 *
 * It does what Octokit's request (@octokit/request's fetch-wrapper) and the
 * SDK's client ask of a fetch: a method, string or byte body, headers (a
 * plain object or a Headers), an abort signal and `redirect`; an answer
 * with `status`, `url`, iterable `headers`, `body`, `text()`, `json()`,
 * `arrayBuffer()`. Octokit's answer is read whole before it is handed over
 * (httpFetch); the SDK's streams (streamingFetch). Redirects are followed as
 * fetch follows them (303, and 301/302 after a POST, become a GET without
 * the body), and the `authorization` header is dropped when one leads to
 * another origin (a job log's download goes to a storage host that must
 * not see the token). A body of another kind (a stream, form data) goes to
 * the global fetch. A proxy is Node's own (NODE_USE_ENV_PROXY, which
 * action/env-proxy.ts makes sure of), for node:https as for fetch.
 * (In the bundle, node:http comes without its ESM facade, which would load
 * undici after all: scripts/bundle-action.mjs.)
 */

/** Headers as a fetch takes them: a plain object, pairs, or a Headers (anything with `entries()`). */
export type HeaderSource =
  | Readonly<Record<string, string>>
  | Iterable<readonly [string, string]>
  | { entries(): Iterable<readonly [string, string]> };

/** What Octokit and the model's SDK pass (a subset of fetch's RequestInit). */
export interface HttpFetchInit {
  method?: string | undefined;
  /** A plain object, or anything with `entries()` (a Headers, the SDK's or the global one). */
  headers?: HeaderSource | undefined;
  body?: unknown;
  signal?: AbortSignal | null | undefined;
  redirect?: "follow" | "manual" | "error" | undefined;
}

/** What Octokit and the SDK read of the answer (a subset of fetch's Response). */
export interface HttpFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: FetchHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** fetch's limit on a request's redirects. */
const MAX_REDIRECTS = 20;
/** undici's default wait for an answer's headers, and between its body's parts. */
const IDLE_TIMEOUT_MS = 300_000;

/**
 * Headers as fetch keeps them: names in lower case, listed sorted, a
 * repeated one joined with ", " (set-cookie too: Octokit reads it so). It is
 * the answers' headers here, and in the Action's bundle it stands in for
 * the global `Headers` inside the Anthropic SDK (scripts/bundle-action.mjs),
 * whose every request builds one: the global one is undici's, and the
 * first use of any of undici's globals loads all of it.
 */
export class FetchHeaders {
  readonly #values = new Map<string, string>();
  constructor(init?: HeaderSource | null) {
    if (!init) return;
    for (const pair of headerPairs(init)) {
      if (pair.length !== 2) throw new TypeError("a header is a [name, value] pair");
      this.append(pair[0], pair[1]);
    }
  }
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const before = this.#values.get(key);
    const text = String(value).trim();
    this.#values.set(key, before === undefined ? text : `${before}, ${text}`);
  }
  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), String(value).trim());
  }
  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }
  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  forEach(each: (value: string, name: string, headers: FetchHeaders) => void): void {
    for (const [name, value] of this.entries()) each(value, name, this);
  }
  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  /** An answer's headers as node:http gives them (a repeated one as an array). */
  static fromMessage(raw: IncomingMessage["headers"]): FetchHeaders {
    const headers = new FetchHeaders();
    for (const [name, value] of Object.entries(raw)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    return headers;
  }
}

function headerPairs(init: HeaderSource): Iterable<readonly [string, string]> {
  if ("entries" in init && typeof init.entries === "function" && !Array.isArray(init)) {
    return (init as { entries(): Iterable<readonly [string, string]> }).entries();
  }
  if (Symbol.iterator in init) return init as Iterable<readonly [string, string]>;
  return Object.entries(init as Readonly<Record<string, string>>);
}

/**
 * Stands in for the global `FormData` inside the bundled SDK, which only
 * asks whether a request body is one (`instanceof`): the global one is
 * undici's (see FetchHeaders). patchwright never sends a form; making one
 * here fails rather than send something else.
 */
export class NoFormData {
  constructor() {
    throw new TypeError("the Action's bundle sends no multipart forms");
  }
}

function answer(
  message: IncomingMessage,
  url: string,
  redirected: boolean,
  body: ReadableStream<Uint8Array> | null,
  whole: () => Promise<Buffer>,
): HttpFetchResponse {
  const status = message.statusCode ?? 0;
  return {
    status,
    statusText: message.statusMessage ?? "",
    ok: status >= 200 && status < 300,
    url,
    redirected,
    headers: FetchHeaders.fromMessage(message.headers),
    body,
    text: async () => (await whole()).toString("utf8"),
    json: async () => JSON.parse((await whole()).toString("utf8")),
    arrayBuffer: async () => {
      const bytes = await whole();
      return bytes.buffer.slice(
        bytes.byteOffset,
        bytes.byteOffset + bytes.byteLength,
      ) as ArrayBuffer;
    },
  };
}

/** An answer read whole before it is handed over: a connection cut mid-body fails the fetch. */
async function buffered(message: IncomingMessage, url: string, redirected: boolean) {
  const bytes = await readAll(message);
  return answer(
    message,
    url,
    redirected,
    bytes.length === 0 ? null : ReadableStream.from([new Uint8Array(bytes)]),
    async () => bytes,
  );
}

/**
 * An answer handed over at its headers, its body read as it arrives (the
 * model's events). Its signal aborting later errors the body with an
 * AbortError, as fetch's does (node:http alone would say "aborted").
 */
function streamed(
  message: IncomingMessage,
  url: string,
  redirected: boolean,
  signal: AbortSignal | undefined,
) {
  if (signal) addAbortSignal(signal, message);
  const body = Readable.toWeb(message) as ReadableStream<Uint8Array>;
  let whole: Promise<Buffer> | undefined;
  const readWhole = async () => {
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    return Buffer.concat(parts);
  };
  return answer(message, url, redirected, body, () => {
    whole ??= readWhole();
    return whole;
  });
}

function readAll(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    message.on("data", (part: Buffer) => parts.push(part));
    message.on("error", reject);
    message.on("end", () => resolve(Buffer.concat(parts)));
  });
}

/**
 * Sends one request; resolves with the answer at its headers. `onSent` is
 * called once the request has been handed to the OS (its 'finish').
 */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  onSent?: () => void,
): Promise<IncomingMessage> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method,
    headers: body ? { ...headers, "content-length": String(body.length) } : headers,
    // Idle time on the socket: waiting for the headers, and between the body's parts.
    timeout: IDLE_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  };
  return new Promise((resolve, reject) => {
    const sent = request(url, options, resolve);
    if (onSent) sent.once("finish", onSent);
    sent.on("timeout", () =>
      sent.destroy(
        Object.assign(new Error(`no answer from ${url.host} in ${IDLE_TIMEOUT_MS / 1000} s`), {
          code: "ETIMEDOUT",
        }),
      ),
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

function bodyBytes(body: unknown): Buffer | undefined | "other" {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return "other";
}

/** fetch over node:http for Octokit: the answer is read whole before it is handed over. */
export function httpFetch(
  input: string | URL,
  init: HttpFetchInit = {},
): Promise<HttpFetchResponse> {
  const early = takeEarlyRead(input, init);
  if (early) return early.catch(() => fetchOverNode(input, init, buffered));
  return fetchOverNode(input, init, buffered);
}

/**
 * GET requests sent before anyone asked (readEarly), by key: the URL, the
 * authorization and the accept header, so that an answer goes only to the
 * very request it answers.
 */
const earlyReads = new Map<string, Promise<HttpFetchResponse>>();

function earlyKey(url: string, headers: FetchHeaders): string {
  return [url, headers.get("authorization") ?? "", headers.get("accept") ?? ""].join("\n");
}

/**
 * Sends a GET now whose answer httpFetch hands, once, to the first request
 * for the same URL with the same authorization and accept header: the
 * Action's entry starts the API reads a job begins with while the rest of
 * the bundle loads (action/early-reads.ts). An answer nobody asks for is
 * dropped with the process; one that failed sends the request again.
 * Resolves once the request has left (handed to the OS) or has failed:
 * Node connects its socket and writes it only as the event loop turns
 * (action/run.ts waits for that before loading the rest).
 */
export function readEarly(url: string, headers: Record<string, string>): Promise<void> {
  let left = () => {};
  const sent = new Promise<void>((done) => {
    left = done;
  });
  const answer = fetchOverNode(url, { headers }, buffered, left);
  // Failures are the asker's to see (it asks again); none may go unhandled.
  answer.then(left, left);
  earlyReads.set(earlyKey(url, new FetchHeaders(headers)), answer);
  return sent;
}

function takeEarlyRead(input: string | URL, init: HttpFetchInit) {
  if (earlyReads.size === 0 || (init.method ?? "GET").toUpperCase() !== "GET" || init.body) {
    return undefined;
  }
  const key = earlyKey(String(input), new FetchHeaders(init.headers));
  const answer = earlyReads.get(key);
  earlyReads.delete(key);
  return answer;
}

/**
 * fetch over node:http for the model's SDK in the Action: the answer is
 * handed over at its headers and its body streams (server-sent events).
 * The SDK's own timeout and abort work through `signal`; an answer cut
 * mid-stream errors its body.
 */
export function streamingFetch(
  input: string | URL,
  init: HttpFetchInit = {},
): Promise<HttpFetchResponse> {
  return fetchOverNode(input, init, async (message, url, redirected) =>
    streamed(message, url, redirected, init.signal ?? undefined),
  );
}

async function fetchOverNode(
  input: string | URL,
  init: HttpFetchInit,
  finish: (
    message: IncomingMessage,
    url: string,
    redirected: boolean,
  ) => Promise<HttpFetchResponse>,
  onSent?: () => void,
): Promise<HttpFetchResponse> {
  const first = bodyBytes(init.body);
  // The global fetch's Response has all of HttpFetchResponse and more.
  if (first === "other")
    return (await fetch(input, init as RequestInit)) as unknown as HttpFetchResponse;
  let url = new URL(input);
  let method = (init.method ?? "GET").toUpperCase();
  let headers = Object.fromEntries(new FetchHeaders(init.headers));
  let body = first;
  const signal = init.signal ?? undefined;
  for (let redirects = 0; ; redirects++) {
    const message = await send(url, method, headers, body, signal, redirects ? undefined : onSent);
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    const isRedirect = [301, 302, 303, 307, 308].includes(status) && location !== undefined;
    if (!isRedirect || init.redirect === "manual") {
      return finish(message, url.href, redirects > 0);
    }
    // Its body is not read: the socket is freed for the next request.
    message.resume();
    const next = new URL(location, url);
    // Named without their queries: a storage host's redirect carries a signature.
    if (init.redirect === "error") {
      throw new TypeError(`${bare(url)} redirects to ${bare(next)}`);
    }
    if (redirects === MAX_REDIRECTS) throw new TypeError(`too many redirects from ${bare(url)}`);
    if (
      status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST"
    ) {
      method = "GET";
      body = undefined;
      headers = withoutHeaders(headers, /^content-/i);
    }
    if (next.origin !== url.origin) headers = withoutHeaders(headers, /^authorization$/i);
    url = next;
  }
}

function bare(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function withoutHeaders(headers: Record<string, string>, names: RegExp): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.test(name)));
}
