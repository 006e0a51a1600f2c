import { describe, expect, it } from "vitest";
import { backoffDelay, decideRetry, parseRetryAfter } from "../../../src/agent/model/retry.js";

const headers = (values: Record<string, string>) => new Headers(values);
const http = (status: number, values: Record<string, string> = {}) =>
  decideRetry({ kind: "http", status, type: null, apiMessage: null, headers: headers(values) });

describe("decideRetry", () => {
  it("retries rate limits, overload and server errors, never another client error", () => {
    for (const status of [429, 500, 502, 503, 504, 529]) expect(http(status).retry).toBe(true);
    for (const status of [400, 401, 402, 403, 404, 408, 409, 413, 418, 422])
      expect(http(status).retry).toBe(false);
  });

  it("lets x-should-retry: false stop a 5xx retry, but never lets true retry a 4xx", () => {
    expect(http(500, { "x-should-retry": "false" }).retry).toBe(false);
    expect(http(529, { "x-should-retry": "true" }).retry).toBe(true);
    for (const status of [401, 408, 409, 418])
      expect(http(status, { "x-should-retry": "true" }).retry).toBe(false);
  });

  it("retries connection failures and transient stream errors", () => {
    expect(decideRetry({ kind: "connection", message: "terminated" }).retry).toBe(true);
    expect(
      decideRetry({ kind: "stream-error", type: "overloaded_error", apiMessage: null }).retry,
    ).toBe(true);
    expect(
      decideRetry({ kind: "stream-error", type: "invalid_request_error", apiMessage: null }).retry,
    ).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms first, then retry-after seconds or date", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "1.5" }))).toBe(1500);
    const now = () => Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:04 GMT" }), now)).toBe(
      4000,
    );
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  const options = { baseDelayMs: 1000, maxDelayMs: 8000, random: () => 0.25 };

  it("applies full jitter to an exponentially growing, capped ceiling", () => {
    const delays = [1, 2, 3, 4, 5, 6].map((retry) =>
      backoffDelay(retry, { retry: true, reason: "" }, options),
    );
    expect(delays).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });

  it("uses the server's retry-after, capped at ten minutes", () => {
    expect(backoffDelay(1, { retry: true, reason: "", retryAfterMs: 30_000 }, options)).toBe(
      30_000,
    );
    expect(backoffDelay(1, { retry: true, reason: "", retryAfterMs: 3_600_000 }, options)).toBe(
      600_000,
    );
  });
});
