import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type AnthropicModelOptions,
  createAnthropicModel,
} from "../../../src/agent/model/anthropic.js";
import type { ModelRequest, ModelStreamEvent } from "../../../src/agent/model/model.js";
import { ModelError } from "../../../src/agent/model/model.js";
import {
  type FakeAnthropic,
  type ServerStep,
  startFakeAnthropic,
} from "../../helpers/fake-anthropic-server.js";
import { cut, httpError, overloaded, reply, text } from "../../helpers/model-script.js";
import { MODEL_TRANSPORTS } from "../../helpers/model-transports.js";
import {
  fetchThrough,
  makeThrowawayCa,
  startInspectingProxy,
  type ThrowawayCa,
} from "../../helpers/tls-proxy.js";

const API_KEY = "sk-ant-test-secret-9c1e";
const hello: ModelRequest = {
  system: [],
  messages: [{ role: "user", content: [text("hi")] }],
  tools: [],
  maxTokens: 8,
};

/** The transport of the tests run over both (MODEL_TRANSPORTS); undefined: the global fetch. */
let transport: typeof fetch | undefined;
const via = () => (transport ? { fetch: transport } : {});

let server: FakeAnthropic | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function setup(steps: ServerStep[], options: Partial<AnthropicModelOptions> = {}) {
  server = await startFakeAnthropic(steps);
  const sleeps: number[] = [];
  const events: ModelStreamEvent[] = [];
  const model = createAnthropicModel({
    apiKey: API_KEY,
    baseURL: server.url,
    model: "claude-sonnet-4-6",
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...via(),
    ...options,
  });
  const complete = (extra: Partial<ModelRequest> = {}) =>
    model.complete(
      {
        system: ["sys"],
        messages: [{ role: "user", content: [text("hi")] }],
        tools: [],
        maxTokens: 1024,
        ...extra,
      },
      (event) => events.push(event),
    );
  return { server, model, sleeps, events, complete };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected the call to fail"),
    (error: unknown) => error,
  );
}

describe.each(MODEL_TRANSPORTS)("createAnthropicModel retries over %s", (_name, transportUsed) => {
  beforeAll(() => {
    transport = transportUsed;
  });

  it("retries a 529 after a jittered backoff and then succeeds", async () => {
    const { server, sleeps, events, complete } = await setup([overloaded(), reply("recovered")]);
    const response = await complete();

    expect(response.content).toEqual([text("recovered")]);
    expect(server.requests).toHaveLength(2);
    // Full jitter: random() * min(maxDelay, base * 2^0) = 0.5 * 1000.
    expect(sleeps).toEqual([500]);
    expect(events.filter((e) => e.type === "retry")).toEqual([
      { type: "retry", attempt: 1, delayMs: 500, reason: expect.stringContaining("529") },
    ]);
  });

  it("grows the backoff exponentially up to maxDelayMs", async () => {
    const { sleeps, complete } = await setup(
      [httpError(500), httpError(502), httpError(503), overloaded(), reply("ok")],
      { random: () => 1, baseDelayMs: 100, maxDelayMs: 500 },
    );
    await complete();
    expect(sleeps).toEqual([100, 200, 400, 500]);
  });

  it("honours retry-after (seconds) and retry-after-ms", async () => {
    const { sleeps, server, complete } = await setup([
      httpError(429, "rate limited", { retryAfter: 7 }),
      overloaded({ retryAfterMs: 1250 }),
      reply("ok"),
    ]);
    await complete();
    expect(sleeps).toEqual([7000, 1250]);
    expect(server.requests).toHaveLength(3);
  });

  it("retries a stream cut mid-way with the whole request, and reports the retry", async () => {
    const { server, events, complete } = await setup([cut(4), reply("complete answer")]);
    const response = await complete();

    expect(response.content).toEqual([text("complete answer")]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({
      attempt: 1,
      reason: expect.stringContaining("connection error"),
    });
    // Text streamed before the cut arrived before the retry event, so a display can reset.
    expect(events.findIndex((e) => e.type === "text_delta")).toBeLessThan(
      events.indexOf(retry as ModelStreamEvent),
    );
  });

  it("retries an overload error that arrives inside the stream", async () => {
    const { server, complete } = await setup([
      httpError(529, "Overloaded", { inStream: true }),
      reply("ok"),
    ]);
    const response = await complete();
    expect(response.content).toEqual([text("ok")]);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after maxRetries with a retryable ModelError", async () => {
    const { server, sleeps, complete } = await setup(
      [overloaded(), overloaded(), overloaded(), reply("too late")],
      { maxRetries: 2 },
    );
    const error = await failure(complete());

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 529, retryable: true });
    expect((error as Error).message).toMatch(/after 3 attempts/);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("does not retry when the server says x-should-retry: false (an exhausted fake script)", async () => {
    const { server, complete } = await setup([]);
    const error = await failure(complete());
    expect(error).toMatchObject({ status: 500, retryable: false });
    expect((error as Error).message).toContain("script exhausted");
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(MODEL_TRANSPORTS)(
  "createAnthropicModel errors that retrying cannot fix over %s",
  (_name, transportUsed) => {
    beforeAll(() => {
      transport = transportUsed;
    });

    it.each([
      [400, /invalid/i],
      [401, /check ANTHROPIC_API_KEY/],
      [403, /permission/i],
      [404, /check the model name/],
      [413, /too large/i],
    ])("does not retry %i and says what to do", async (status, advice) => {
      const { server, sleeps, complete } = await setup([
        httpError(status, "nope"),
        reply("never sent"),
      ]);
      const error = await failure(complete());

      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ status, retryable: false });
      expect((error as Error).message).toMatch(advice);
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it("never puts the API key in an error message, even when the server echoes it", async () => {
      const echo = `invalid x-api-key: ${API_KEY}`;
      const { complete } = await setup([httpError(401, echo)]);
      const error = (await failure(complete())) as Error;
      expect(error.message).not.toContain(API_KEY);
      expect(error.message).toContain("[redacted: known-secret]");
      await server?.close();

      const { complete: again } = await setup([overloaded(), overloaded()], { maxRetries: 1 });
      const exhausted = (await failure(again())) as Error;
      expect(exhausted.message).not.toContain(API_KEY);
    });

    it("uses the given key even when ANTHROPIC_AUTH_TOKEN is set in the environment", async () => {
      vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "env-token-should-not-be-used");
      const { server, complete } = await setup([reply("ok")]);
      await complete();
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    });
  },
);

describe("createAnthropicModel failures outside the API", () => {
  it.each(MODEL_TRANSPORTS)(
    "retries a refused connection and then points at the network, over %s",
    async (_name, transportUsed) => {
      const closed = await startFakeAnthropic();
      await closed.close();
      const sleeps: number[] = [];
      const model = createAnthropicModel({
        apiKey: API_KEY,
        baseURL: closed.url,
        model: "claude-sonnet-4-6",
        ...(transportUsed ? { fetch: transportUsed } : {}),
        maxRetries: 1,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      const error = await failure(
        model.complete({
          system: [],
          messages: [{ role: "user", content: [text("hi")] }],
          tools: [],
          maxTokens: 8,
        }),
      );
      expect(error).toMatchObject({ name: "ModelError", retryable: true });
      expect((error as Error).message).toMatch(/ECONNREFUSED[\s\S]*check the network connection/i);
      expect(sleeps).toHaveLength(1);
    },
  );

  describe("on a company network", () => {
    let dir: string;
    let ca: ThrowawayCa;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "pw-company-ca-"));
      ca = await makeThrowawayCa(dir);
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it.each(MODEL_TRANSPORTS)(
      "does not retry an endpoint whose TLS certificate nobody here trusts, and says what to trust, over %s",
      async (_name, transportUsed) => {
        // A network that inspects HTTPS with its own CA, which this process was not told of.
        const leaf = await ca.issue(["127.0.0.1"]);
        let reached = 0;
        const https = createHttpsServer(leaf, (_req, res) => {
          reached += 1;
          res.end("{}");
        });
        await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
        try {
          const sleeps: number[] = [];
          const model = createAnthropicModel({
            apiKey: API_KEY,
            baseURL: `https://127.0.0.1:${(https.address() as AddressInfo).port}`,
            model: "claude-sonnet-4-6",
            ...(transportUsed ? { fetch: transportUsed } : {}),
            maxRetries: 3,
            sleep: async (ms) => {
              sleeps.push(ms);
            },
          });
          const error = await failure(model.complete(hello));
          expect(error).toMatchObject({ name: "ModelError", retryable: false });
          expect((error as Error).message).toMatch(
            /Anthropic API error \(connection error: [^)]*certificate[^)]*\)\. The endpoint's TLS certificate is not trusted here \([^)]+\)\. If this network inspects HTTPS, trust its CA where patchwright runs \(NODE_EXTRA_CA_CERTS/,
          );
          expect(sleeps).toEqual([]);
          expect(reached).toBe(0);
        } finally {
          await new Promise((resolve) => https.close(resolve));
        }
      },
    );

    it("does not retry through a proxy that asks for a password", async () => {
      const proxy = await startInspectingProxy({
        ca,
        routes: { "api.anthropic.test:443": "http://127.0.0.1:1" },
        credentials: { user: "corp", password: "secret" },
      });
      const through = fetchThrough(proxy.url);
      try {
        const sleeps: number[] = [];
        const model = createAnthropicModel({
          apiKey: API_KEY,
          baseURL: "https://api.anthropic.test",
          model: "claude-sonnet-4-6",
          fetch: through.fetch,
          sleep: async (ms) => {
            sleeps.push(ms);
          },
        });
        const error = await failure(model.complete(hello));
        expect(error).toMatchObject({ name: "ModelError", retryable: false });
        expect((error as Error).message).toMatch(
          /Proxy response \(407\)[\s\S]*The proxy asks for a password \(407 Proxy Authentication Required\); check the user and password in HTTPS_PROXY/,
        );
        expect(sleeps).toEqual([]);
        expect(proxy.refused).toBe(1);
      } finally {
        await through.close();
        await proxy.close();
      }
    });
  });

  it("does not retry a port fetch never connects to", async () => {
    const sleeps: number[] = [];
    const model = createAnthropicModel({
      apiKey: API_KEY,
      baseURL: "http://127.0.0.1:9",
      model: "claude-sonnet-4-6",
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const error = await failure(model.complete(hello));
    expect(error).toMatchObject({ name: "ModelError", retryable: false });
    expect((error as Error).message).toMatch(/bad port[\s\S]*serve the endpoint on another port/);
    expect(sleeps).toEqual([]);
  });

  it("retries a stream that closes cleanly before message_stop (through an injected fetch)", async () => {
    server = await startFakeAnthropic([reply("whole answer")]);
    const truncated = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    ].join("");
    let calls = 0;
    const fetchOnce: typeof fetch = (input, init) => {
      calls++;
      if (calls === 1) {
        return Promise.resolve(
          new Response(truncated, { headers: { "content-type": "text/event-stream" } }),
        );
      }
      return fetch(input, init);
    };
    const events: ModelStreamEvent[] = [];
    const model = createAnthropicModel({
      apiKey: API_KEY,
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      fetch: fetchOnce,
      sleep: async () => {},
    });
    const response = await model.complete(
      { system: [], messages: [{ role: "user", content: [text("hi")] }], tools: [], maxTokens: 8 },
      (event) => events.push(event),
    );
    expect(response.content).toEqual([text("whole answer")]);
    expect(calls).toBe(2);
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      reason: expect.stringContaining("before message_stop"),
    });
  });

  it("does not retry when the onEvent listener throws", async () => {
    server = await startFakeAnthropic([reply("hello there"), reply("second")]);
    const model = createAnthropicModel({
      apiKey: API_KEY,
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      sleep: async () => {},
    });
    const broken = new Error("display crashed");
    const call = model.complete(
      { system: [], messages: [{ role: "user", content: [text("hi")] }], tools: [], maxTokens: 8 },
      () => {
        throw broken;
      },
    );
    await expect(call).rejects.toBe(broken);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(MODEL_TRANSPORTS)("createAnthropicModel abort over %s", (_name, transportUsed) => {
  beforeAll(() => {
    transport = transportUsed;
  });

  it("stops mid-stream when the signal aborts after the first delta", async () => {
    const controller = new AbortController();
    server = await startFakeAnthropic([reply("a long streamed answer"), reply("never")]);
    const model = createAnthropicModel({
      apiKey: API_KEY,
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      sleep: async () => {},
    });
    const call = model.complete(
      {
        system: [],
        messages: [{ role: "user", content: [text("hi")] }],
        tools: [],
        maxTokens: 8,
        signal: controller.signal,
      },
      (event) => {
        if (event.type === "text_delta") controller.abort();
      },
    );
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(1);
  });

  it("stops during a backoff sleep without sending another request", async () => {
    const controller = new AbortController();
    const { server, complete } = await setup([overloaded(), reply("never")], {
      sleep: (_ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    });
    const error = await failure(complete({ signal: controller.signal }));

    expect(error).toMatchObject({ name: "AbortError" });
    expect(error).not.toBeInstanceOf(ModelError);
    expect(server.requests).toHaveLength(1);
  });

  it("stops after a sleep that ignores the signal", async () => {
    const controller = new AbortController();
    const { server, complete } = await setup([overloaded(), reply("never")], {
      sleep: async () => controller.abort(),
    });
    const error = await failure(complete({ signal: controller.signal }));
    expect(error).toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(1);
  });

  it("does not send anything when the signal is already aborted", async () => {
    const { server, complete } = await setup([reply("never")]);
    const error = await failure(complete({ signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(0);
  });

  it("aborts a request in flight", async () => {
    const controller = new AbortController();
    const slow: ServerStep = () => {
      controller.abort();
      return reply("a long answer that should not be returned");
    };
    const { complete } = await setup([slow]);
    const error = await failure(complete({ signal: controller.signal }));
    expect(error).toMatchObject({ name: "AbortError" });
  });
});
