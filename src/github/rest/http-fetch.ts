import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * The Action's Octokit sends its requests through node:http and node:https
 * instead of the global fetch: the global fetch is undici, which Node 24
 * loads on first use, about 40 ms of the one thread that is the Action's way
 * to its first model request (measured on the 2-core VM), against about 10
 * for node:https. The API calls that decide the job then go out while undici
 * is not yet needed; the model's SDK loads it later, for its own request.
 *
 * It does what Octokit's request asks of a fetch (@octokit/request's
 * fetch-wrapper): a method, string or byte body, headers, an abort signal
 * and `redirect`; an answer with `status`, `url`, iterable `headers`,
 * `text()`, `arrayBuffer()`. Redirects are followed as fetch follows them
 * (303, and 301/302 after a POST, become a GET without the body), and the
 * `authorization` header is dropped when one leads to another origin (a job
 * log's download goes to a storage host that must not see the token). A
 * body of another kind (a stream, form data) goes to the global fetch.
 * (In the bundle, node:http comes without its ESM facade, which would load
 * undici after all: scripts/bundle-action.mjs.)
 */

/** What Octokit passes (a subset of fetch's RequestInit). */
export interface HttpFetchInit {
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: unknown;
  signal?: AbortSignal | null | undefined;
  redirect?: "follow" | "manual" | "error" | undefined;
}

/** What Octokit reads of the answer (a subset of fetch's Response). */
export interface HttpFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: AnswerHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** fetch's limit on a request's redirects. */
const MAX_REDIRECTS = 20;
/** undici's default wait for an answer's headers, and between its body's parts. */
const IDLE_TIMEOUT_MS = 300_000;

export class AnswerHeaders {
  readonly #values: Map<string, string>;
  constructor(raw: IncomingMessage["headers"]) {
    // fetch joins a repeated header with ", " and lists names in lower case, sorted.
    this.#values = new Map(
      Object.keys(raw)
        .sort()
        .flatMap((name) => {
          const value = raw[name];
          if (value === undefined) return [];
          return [[name, Array.isArray(value) ? value.join(", ") : value] as const];
        }),
    );
  }
  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  forEach(each: (value: string, name: string) => void): void {
    for (const [name, value] of this.#values) each(value, name);
  }
  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

function answer(message: IncomingMessage, url: string, redirected: boolean, bytes: Buffer) {
  const status = message.statusCode ?? 0;
  const result: HttpFetchResponse = {
    status,
    statusText: message.statusMessage ?? "",
    ok: status >= 200 && status < 300,
    url,
    redirected,
    headers: new AnswerHeaders(message.headers),
    get body() {
      return bytes.length === 0 ? null : ReadableStream.from([new Uint8Array(bytes)]);
    },
    text: async () => bytes.toString("utf8"),
    json: async () => JSON.parse(bytes.toString("utf8")),
    arrayBuffer: async () =>
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  };
  return result;
}

/** Sends one request and reads its whole answer. */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
): Promise<{ message: IncomingMessage; bytes: Buffer }> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method,
    headers: body ? { ...headers, "content-length": String(body.length) } : headers,
    timeout: IDLE_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  };
  return new Promise((resolve, reject) => {
    const request = send(url, options, (message) => {
      const parts: Buffer[] = [];
      message.on("data", (part: Buffer) => parts.push(part));
      message.on("error", reject);
      message.on("end", () => resolve({ message, bytes: Buffer.concat(parts) }));
    });
    request.on("timeout", () =>
      request.destroy(
        Object.assign(new Error(`no answer from ${url.host} in ${IDLE_TIMEOUT_MS / 1000} s`), {
          code: "ETIMEDOUT",
        }),
      ),
    );
    request.on("error", reject);
    request.end(body);
  });
}

function bodyBytes(body: unknown): Buffer | undefined | "other" {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return "other";
}

export async function httpFetch(
  input: string | URL,
  init: HttpFetchInit = {},
): Promise<HttpFetchResponse> {
  const first = bodyBytes(init.body);
  // The global fetch's Response has all of HttpFetchResponse and more.
  if (first === "other")
    return (await fetch(input, init as RequestInit)) as unknown as HttpFetchResponse;
  let url = new URL(input);
  let method = (init.method ?? "GET").toUpperCase();
  let headers = { ...init.headers };
  let body = first;
  const signal = init.signal ?? undefined;
  for (let redirects = 0; ; redirects++) {
    const { message, bytes } = await exchange(url, method, headers, body, signal);
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    const isRedirect = [301, 302, 303, 307, 308].includes(status) && location !== undefined;
    if (!isRedirect || init.redirect === "manual") {
      return answer(message, url.href, redirects > 0, bytes);
    }
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
