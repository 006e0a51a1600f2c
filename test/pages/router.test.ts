import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPagesHandler } from "../../src/pages/router.js";
import { type PagesHarness, startPagesHarness } from "../helpers/pages-harness.js";

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

describe("job pages over HTTP", () => {
  let h: PagesHarness;
  let reader: string;
  let writer: string;
  let outsider: string;

  beforeAll(async () => {
    h = await startPagesHarness({
      permissions: {
        rita: { "acme/app": "read" },
        wes: { "acme/app": "write" },
        olga: { "other/thing": "write" },
      },
      admins: ["Boss"],
    });
    h.view.add({ id: "j1", repo: { owner: "acme", name: "app" }, requester: "rita" });
    h.view.add({ id: "j2", repo: { owner: "secret", name: "vault" }, requester: "x" });
    h.view.append("j1", { at: Date.now(), type: "state", state: "running" });
    h.view.append("j1", {
      at: Date.now(),
      type: "tool_call",
      turn: 1,
      id: "t1",
      name: "bash",
      input: `echo ${SECRET} <script>alert(1)</script>`,
    });
    reader = await h.signIn("rita");
    writer = await h.signIn("wes");
    outsider = await h.signIn("olga");
  });
  afterAll(() => h.close());

  const get = (path: string, cookie?: string) =>
    fetch(`${h.url}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
  const post = (path: string, cookie: string, form: Record<string, string>, origin?: string) =>
    fetch(`${h.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        "content-type": "application/x-www-form-urlencoded",
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams(form).toString(),
    });
  const csrfOf = async (cookie: string) => {
    const page = await (await get("/jobs", cookie)).text();
    return /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  };

  it("sends a person who is not signed in to sign in, and back to the page they asked for", async () => {
    const response = await get("/jobs/j1");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/jobs/login?next=%2Fjobs%2Fj1");
    const login = await get("/jobs/login?next=%2Fjobs%2Fj1");
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get("location") ?? "");
    expect(authorize.pathname).toBe("/login/oauth/authorize");
    expect(authorize.searchParams.get("state")).toMatch(/^[\w-]{40,}$/);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${h.url}/jobs/callback`);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(await (await get("/jobs/rows")).status).toBe(401);
  });

  it("refuses a callback whose state is not the one it sent, or with no sign-in started", async () => {
    h.github.signInAs("rita");
    const login = await get("/jobs/login");
    const signInCookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const atGitHub = await fetch(login.headers.get("location") ?? "", { redirect: "manual" });
    const back = new URL(atGitHub.headers.get("location") ?? "");
    back.searchParams.set("state", "forged-state");
    const forged = await get(back.pathname + back.search, signInCookie);
    expect(forged.status).toBe(400);
    expect(
      forged.headers
        .getSetCookie()
        .some((c) => c.startsWith("pw_session=") && !c.startsWith("pw_session=;")),
    ).toBe(false);
    const noCookie = await get(`/jobs/callback?code=x&state=y`);
    expect(noCookie.status).toBe(400);
  });

  it("never puts the person's GitHub token in the cookie or a page", async () => {
    const tokens = [...h.github.tokens.keys()];
    expect(tokens.length).toBeGreaterThan(0);
    const page = await (await get("/jobs/j1", reader)).text();
    for (const token of tokens) {
      expect(reader).not.toContain(token);
      expect(
        decodeURIComponent(
          Buffer.from(reader.split("=")[1]?.split(".")[0] ?? "", "base64url").toString(),
        ),
      ).not.toContain(token);
      expect(page).not.toContain(token);
    }
  });

  it("shows a reader the job, escaped and redacted, and no jobs of repositories they cannot read", async () => {
    const list = await (await get("/jobs", reader)).text();
    expect(list).toContain('id="job-j1"');
    expect(list).not.toContain("job-j2");
    expect(list).not.toContain("secret/vault");
    const page = await get("/jobs/j1", reader);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(text).not.toContain("<script>alert(1)");
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[redacted");
    // A reader has no cancel button.
    expect(text).not.toContain("Cancel job");
  });

  it("answers an outsider 404 for the job, and an empty list", async () => {
    expect((await get("/jobs/j1", outsider)).status).toBe(404);
    expect((await get("/jobs/j1/events", outsider)).status).toBe(404);
    const list = await (await get("/jobs", outsider)).text();
    expect(list).not.toContain("job-j1");
    expect(list).toContain("No jobs to show.");
    const stats = await (await get("/jobs/stats", outsider)).text();
    expect(stats).not.toContain("acme/app");
  });

  it("refuses a POST without the session's CSRF token, or from another origin", async () => {
    expect((await post("/jobs/j1/cancel", writer, {})).status).toBe(403);
    expect((await post("/jobs/j1/cancel", writer, { csrf: "nope" })).status).toBe(403);
    // Another person's token is not this session's.
    expect((await post("/jobs/j1/cancel", writer, { csrf: await csrfOf(reader) })).status).toBe(
      403,
    );
    const csrf = await csrfOf(writer);
    expect((await post("/jobs/j1/cancel", writer, { csrf }, "https://evil.example")).status).toBe(
      403,
    );
    expect(h.view.cancelled).toEqual([]);
  });

  it("lets a reader not cancel, and a writer cancel", async () => {
    const readerTry = await post("/jobs/j1/cancel", reader, { csrf: await csrfOf(reader) });
    expect(readerTry.status).toBe(403);
    expect(h.view.cancelled).toEqual([]);
    const page = await (await get("/jobs/j1", writer)).text();
    expect(page).toContain("Cancel job");
    const done = await post("/jobs/j1/cancel", writer, { csrf: await csrfOf(writer) }, h.url);
    expect(done.status).toBe(303);
    expect(h.view.cancelled).toEqual([{ id: "j1", by: "wes" }]);
    const after = await (await get("/jobs/j1", writer)).text();
    expect(after).toContain("state-cancelled");
    expect(after).toContain("Retry job");
  });

  it("shows an operator every job", async () => {
    const boss = await h.signIn("boss");
    const list = await (await get("/jobs", boss)).text();
    expect(list).toContain("job-j2");
    expect((await get("/jobs/j2", boss)).status).toBe(200);
  });

  it("refuses a tampered session cookie", async () => {
    const [name, value] = reader.split("=");
    const [body, mac] = (value ?? "").split(".");
    const payload = JSON.parse(Buffer.from(body ?? "", "base64url").toString());
    payload.l = "boss";
    const forged = `${name}=${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
    const response = await get("/jobs", forged);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/jobs\/login/);
  });

  it("signs out with a POST carrying the token", async () => {
    const cookie = await h.signIn("rita");
    const out = await post("/jobs/logout", cookie, { csrf: await csrfOf(cookie) });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/jobs/signed-out");
    expect(out.headers.get("set-cookie")).toMatch(/^pw_session=; .*Max-Age=0/);
  });
});

describe("job pages without an OAuth client", () => {
  it("say they are off and how to turn them on, for every path", async () => {
    const handler = createPagesHandler({
      config: { on: false, missing: ["GITHUB_CLIENT_ID", "PATCHWRIGHT_PUBLIC_URL"] },
    });
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      void handler(req, res).then((handled) => handled || res.writeHead(418).end());
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as import("node:net").AddressInfo;
    try {
      for (const path of ["/jobs", "/jobs/j1", "/jobs/login", "/jobs/stats"]) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: "manual" });
        expect(response.status).toBe(404);
        const text = await response.text();
        expect(text).toContain("Job pages are off");
        expect(text).toContain("GITHUB_CLIENT_ID");
      }
      expect((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status).toBe(418);
    } finally {
      server.close();
    }
  });
});
