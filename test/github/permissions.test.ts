import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  canStartJob,
  createWriterCheck,
  getPermission,
  type PermissionLevel,
} from "../../src/github/permissions.js";

const API = "https://api.github.com";
const octokit = new Octokit({ auth: "test", baseUrl: API });
const repo = { owner: "acme", repo: "widgets" };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => nock.enableNetConnect());

function permissionReply(username: string, body: Record<string, unknown>, times = 1) {
  return nock(API)
    .get(`/repos/acme/widgets/collaborators/${username}/permission`)
    .times(times)
    .reply(200, { user: { login: username }, ...body });
}

describe("getPermission", () => {
  it.each<[Record<string, unknown>, PermissionLevel]>([
    [{ permission: "admin", role_name: "admin" }, "admin"],
    [{ permission: "write", role_name: "maintain" }, "maintain"],
    [{ permission: "write", role_name: "write" }, "write"],
    [{ permission: "read", role_name: "triage" }, "triage"],
    [{ permission: "read", role_name: "read" }, "read"],
    [{ permission: "none", role_name: "none" }, "none"],
    [{ permission: "write" }, "write"],
    [{ permission: "write", role_name: "release-manager" }, "write"],
    [{ permission: "read", role_name: "security-reviewer" }, "read"],
    [{ permission: "superuser" }, "none"],
  ])("reads %j as %s", async (body, level) => {
    permissionReply("alice", body);
    expect(await getPermission(octokit, { ...repo, username: "alice" })).toBe(level);
  });

  it("treats an unknown user as having no permission", async () => {
    nock(API)
      .get("/repos/acme/widgets/collaborators/ghost/permission")
      .reply(404, { message: "Not Found" });
    expect(await getPermission(octokit, { ...repo, username: "ghost" })).toBe("none");
  });

  it("throws other API failures instead of guessing", async () => {
    nock(API)
      .get("/repos/acme/widgets/collaborators/alice/permission")
      .reply(403, { message: "Resource not accessible by integration" });
    await expect(getPermission(octokit, { ...repo, username: "alice" })).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("canStartJob", () => {
  it.each<[PermissionLevel, boolean]>([
    ["admin", true],
    ["maintain", true],
    ["write", true],
    ["triage", false],
    ["read", false],
    ["none", false],
  ])("%s -> %s", (level, allowed) => {
    expect(canStartJob(level)).toBe(allowed);
  });
});

describe("createWriterCheck", () => {
  it("answers per login and asks GitHub once per login, whatever its case", async () => {
    permissionReply("alice", { permission: "write", role_name: "write" });
    permissionReply("bob", { permission: "read", role_name: "triage" });
    const isWriter = createWriterCheck(octokit, repo);
    expect(await isWriter("alice")).toBe(true);
    expect(await isWriter("bob")).toBe(false);
    expect(await Promise.all([isWriter("alice"), isWriter("ALICE"), isWriter("bob")])).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("shares one request between concurrent calls", async () => {
    permissionReply("carol", { permission: "admin", role_name: "admin" });
    const isWriter = createWriterCheck(octokit, repo);
    expect(await Promise.all([isWriter("carol"), isWriter("carol")])).toEqual([true, true]);
  });

  it("does not remember a failed lookup", async () => {
    nock(API).get("/repos/acme/widgets/collaborators/dave/permission").reply(500, {});
    permissionReply("dave", { permission: "write" });
    const isWriter = createWriterCheck(octokit, repo);
    await expect(isWriter("dave")).rejects.toMatchObject({ status: 500 });
    expect(await isWriter("dave")).toBe(true);
  });
});
