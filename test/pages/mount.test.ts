import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/index.js";
import { PRIVATE_KEY } from "../helpers/app-harness.js";
import { createFakeJobsView } from "../helpers/fake-jobs-view.js";
import { stubQueue } from "../helpers/stub-queue.js";

/** The App serves the job pages on its own server, beside the webhooks. */

const idleQueue = stubQueue();

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

async function serve(env: Record<string, string>): Promise<string> {
  const { app } = createApp({
    env: {
      HOME: "/home/bot",
      APP_ID: "1",
      PRIVATE_KEY,
      WEBHOOK_SECRET: "secret",
      PATCHWRIGHT_WORKER: "off",
      PATCHWRIGHT_DEPS_SCHEDULER: "off",
      ...env,
    },
    queue: idleQueue,
    jobsView: createFakeJobsView(),
  });
  const probot = new Probot({
    appId: 1,
    privateKey: PRIVATE_KEY,
    secret: "secret",
    logLevel: "fatal",
  });
  const middleware = await createNodeMiddleware(app, { probot });
  server = createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end("not ours"));
  });
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the App's job pages", () => {
  it("are off without an OAuth client, and say how to turn them on", async () => {
    const url = await serve({});
    const response = await fetch(`${url}/jobs`, { redirect: "manual" });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("GITHUB_CLIENT_ID");
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
  });

  it("ask for sign-in with one", async () => {
    const url = await serve({
      GITHUB_CLIENT_ID: "Iv1.abc",
      GITHUB_CLIENT_SECRET: "client-secret",
      PATCHWRIGHT_PUBLIC_URL: "https://bot.example.com",
    });
    const list = await fetch(`${url}/jobs`, { redirect: "manual" });
    expect(list.status).toBe(303);
    const login = await fetch(`${url}${list.headers.get("location")}`, { redirect: "manual" });
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get("location") ?? "");
    expect(authorize.origin + authorize.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(authorize.searchParams.get("client_id")).toBe("Iv1.abc");
    expect(authorize.searchParams.get("redirect_uri")).toBe(
      "https://bot.example.com/jobs/callback",
    );
    expect(login.headers.get("set-cookie")).toMatch(/Secure/);
    const htmx = await fetch(`${url}/jobs/static/htmx.min.js`);
    expect(htmx.headers.get("content-type")).toMatch(/javascript/);
  });
});
