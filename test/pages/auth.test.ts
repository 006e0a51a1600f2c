import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccess,
  githubRepoLookup,
  type RepoAccess,
  SignedOutError,
} from "../../src/pages/auth/access.js";
import { createSessionCodec } from "../../src/pages/auth/session.js";

describe("access rules", () => {
  const rita = { login: "Rita", token: "tok-rita" };
  const boss = { login: "boss", token: "tok-boss" };
  const repo = { owner: "acme", name: "app" };

  function counted(answers: Record<string, RepoAccess>) {
    const calls: string[] = [];
    const lookup = async (token: string, ref: { owner: string; name: string }) => {
      calls.push(`${token} ${ref.owner}/${ref.name}`);
      return answers[`${token} ${ref.owner}/${ref.name}`] ?? "none";
    };
    return { calls, lookup };
  }

  it("a reader reads but does not control; a writer controls; others see nothing", async () => {
    const { lookup } = counted({ "tok-rita acme/app": "read", "tok-wes acme/app": "write" });
    const access = createAccess({ admins: new Set(), lookup });
    expect(await access.canRead(rita, repo)).toBe(true);
    expect(await access.canControl(rita, repo)).toBe(false);
    const wes = { login: "wes", token: "tok-wes" };
    expect(await access.canControl(wes, repo)).toBe(true);
    const olga = { login: "olga", token: "tok-olga" };
    expect(await access.canRead(olga, repo)).toBe(false);
  });

  it("operators see and control everything without asking GitHub", async () => {
    const { calls, lookup } = counted({});
    const access = createAccess({ admins: new Set(["Boss"]), lookup });
    expect(access.isOperator(boss)).toBe(true);
    expect(await access.canControl(boss, { owner: "any", name: "thing" })).toBe(true);
    expect(calls).toEqual([]);
  });

  it("keeps an answer for a minute per person and repository, then asks again", async () => {
    let now = 1_000_000;
    const { calls, lookup } = counted({ "tok-rita acme/app": "read" });
    const access = createAccess({
      admins: new Set(),
      lookup,
      clock: { now: () => now },
      ttlMs: 60_000,
    });
    await access.canRead(rita, repo);
    await access.canRead({ ...rita, login: "rita" }, { owner: "ACME", name: "App" });
    expect(calls).toHaveLength(1);
    now += 60_001;
    await access.canRead(rita, repo);
    expect(calls).toHaveLength(2);
  });

  it("does not keep a failure", async () => {
    let fail = true;
    const access = createAccess({
      admins: new Set(),
      lookup: async () => {
        if (fail) throw new Error("GitHub down");
        return "read";
      },
    });
    await expect(access.canRead(rita, repo)).rejects.toThrow("GitHub down");
    fail = false;
    expect(await access.canRead(rita, repo)).toBe(true);
  });

  describe("GitHub's answer for the person's token", () => {
    let base = "";
    const server = createServer((req, res) => {
      const status: Record<string, number> = {
        "/repos/a/pub": 200,
        "/repos/a/write": 200,
        "/repos/a/hidden": 404,
        "/repos/a/sso": 403,
        "/repos/a/revoked": 401,
      };
      const code = status[req.url ?? ""] ?? 500;
      const push = req.url === "/repos/a/write";
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify({ permissions: { pull: true, push } }));
    });
    beforeAll(async () => {
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => server.close());

    it("maps 200/push, 404 and 403 to access, and 401 to a sign-out", async () => {
      const lookup = githubRepoLookup(base);
      expect(await lookup("t", { owner: "a", name: "pub" })).toBe("read");
      expect(await lookup("t", { owner: "a", name: "write" })).toBe("write");
      expect(await lookup("t", { owner: "a", name: "hidden" })).toBe("none");
      expect(await lookup("t", { owner: "a", name: "sso" })).toBe("none");
      await expect(lookup("t", { owner: "a", name: "revoked" })).rejects.toBeInstanceOf(
        SignedOutError,
      );
      await expect(lookup("t", { owner: "a", name: "broken" })).rejects.toThrow("500");
    });
  });
});

describe("session cookies", () => {
  const secret = Buffer.from("x".repeat(40));
  let now = 1_000_000;
  const clock = { now: () => now };

  it("round-trips a session, with the token encrypted in the cookie", () => {
    const codec = createSessionCodec(secret, clock);
    const { value, session } = codec.sealSession({ login: "rita", token: "ghu_SECRETTOKEN123" });
    expect(value).not.toContain("ghu_SECRETTOKEN123");
    expect(Buffer.from(value.split(".")[0] ?? "", "base64url").toString()).not.toContain(
      "SECRETTOKEN",
    );
    expect(codec.openSession(value)).toEqual(session);
    expect(session.csrf).toMatch(/^[\w-]{40,}$/);
  });

  it("refuses a changed payload, a changed signature, another secret, and an expired one", () => {
    const codec = createSessionCodec(secret, clock);
    const { value } = codec.sealSession({ login: "rita", token: "t" });
    const [body, mac] = value.split(".") as [string, string];
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, l: "boss" })).toString("base64url");
    expect(codec.openSession(`${forged}.${mac}`)).toBeUndefined();
    expect(codec.openSession(`${body}.${mac.slice(0, -2)}AA`)).toBeUndefined();
    expect(codec.openSession(`${body}`)).toBeUndefined();
    expect(codec.openSession(`${value}.extra`)).toBeUndefined();
    expect(
      createSessionCodec(Buffer.from("y".repeat(40)), clock).openSession(value),
    ).toBeUndefined();
    now += 9 * 60 * 60 * 1000;
    expect(codec.openSession(value)).toBeUndefined();
  });

  it("does not take a sign-in cookie for a session", () => {
    const codec = createSessionCodec(secret, clock);
    const { value, signIn } = codec.sealSignIn("/jobs/x");
    expect(codec.openSignIn(value)).toEqual(signIn);
    expect(codec.openSession(value)).toBeUndefined();
  });
});
