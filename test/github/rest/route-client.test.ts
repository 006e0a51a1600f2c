import { join } from "node:path";
import { pathToFileURL } from "node:url";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRouteClient } from "../../../src/github/rest/route-client.js";
import { REST_ROUTES } from "../../../src/github/rest/routes.js";

const API = "https://api.github.com";

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

// The plugin's own table (not among its package's exports, hence the path).
const table: Record<string, Record<string, unknown[]>> = (
  await import(
    pathToFileURL(
      join(
        import.meta.dirname,
        "../../../node_modules/@octokit/plugin-rest-endpoint-methods/dist-src/generated/endpoints.js",
      ),
    ).href
  )
).default;

describe("REST_ROUTES", () => {
  it("gives each endpoint the route @octokit/plugin-rest-endpoint-methods gives it, with no defaults or decorations of its own", () => {
    const entries = Object.entries(REST_ROUTES).flatMap(([scope, routes]) =>
      Object.entries(routes).map(([name, route]) => ({ endpoint: `${scope}.${name}`, route })),
    );
    expect(entries.length).toBeGreaterThan(40);
    for (const { endpoint, route } of entries) {
      const [scope = "", name = ""] = endpoint.split(".");
      // [route] alone: the plugin's method is then the request with the route's method and URL.
      expect(table[scope]?.[name], endpoint).toEqual([route]);
    }
  });
});

describe("createRouteClient", () => {
  const client = () => createRouteClient({ auth: "ghs_token", userAgent: "patchwright-test" });

  it("sends each endpoint's request to its route", async () => {
    const scope = nock(API, { reqheaders: { authorization: "token ghs_token" } })
      .post("/repos/o/r/issues/7/comments", { body: "hi" })
      .reply(201, { id: 1 })
      .get("/repos/o/r/contents/.github%2Fpatchwright.yml")
      .query({ ref: "main" })
      .reply(404, { message: "Not Found" })
      .patch("/repos/o/r/git/refs/heads%2Fmain", { sha: "abc", force: false })
      .reply(200, {});
    const created = await client().rest.issues.createComment({
      owner: "o",
      repo: "r",
      issue_number: 7,
      body: "hi",
    });
    expect(created).toMatchObject({ status: 201, data: { id: 1 } });
    await expect(
      client().rest.repos.getContent({
        owner: "o",
        repo: "r",
        path: ".github/patchwright.yml",
        ref: "main",
      }),
    ).rejects.toMatchObject({ status: 404 });
    await client().rest.git.updateRef({
      owner: "o",
      repo: "r",
      ref: "heads/main",
      sha: "abc",
      force: false,
    });
    expect(scope.isDone()).toBe(true);
  });

  it("pages through a list with its method, as @octokit/rest's paginate does", async () => {
    nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query({ per_page: 2 })
      .reply(200, [{ id: 1 }, { id: 2 }], {
        link: `<${API}/repos/o/r/issues/7/comments?per_page=2&page=2>; rel="next"`,
      })
      .get("/repos/o/r/issues/7/comments")
      .query({ per_page: 2, page: 2 })
      .reply(200, [{ id: 3 }]);
    const all = await client().paginate(client().rest.issues.listComments, {
      owner: "o",
      repo: "r",
      issue_number: 7,
      per_page: 2,
    });
    expect(all.map((comment) => comment.id)).toEqual([1, 2, 3]);
  });

  it("has no endpoint outside the table", () => {
    const rest = client().rest as unknown as Record<string, Record<string, unknown>>;
    expect(rest.issues?.lock).toBeUndefined();
    expect(rest.users).toBeUndefined();
  });
});
