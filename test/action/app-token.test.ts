import { createPublicKey, createVerify, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAppJwt, createInstallationToken } from "../../src/action/app-token.js";
import type { GitHubClient } from "../../src/github/octokit.js";

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PEM = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function decode(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"));
}

describe("createAppJwt", () => {
  it("signs an RS256 JWT for the App that GitHub accepts: issued a minute back, under ten minutes", () => {
    const jwt = createAppJwt({ id: "12345", privateKey: PEM }, NOW);
    const [header, payload, signature] = jwt.split(".");
    expect(decode(header)).toEqual({ alg: "RS256", typ: "JWT" });
    expect(decode(payload)).toEqual({ iat: NOW / 1000 - 60, exp: NOW / 1000 + 540, iss: 12345 });
    const valid = createVerify("RSA-SHA256")
      .update(`${header}.${payload}`)
      .verify(createPublicKey(PEM), signature ?? "", "base64url");
    expect(valid).toBe(true);
  });

  it("accepts a key pasted with literal \\n instead of line breaks", () => {
    const flattened = PEM.trim().split("\n").join("\\n");
    expect(createAppJwt({ id: "1", privateKey: flattened }, NOW)).toBe(
      createAppJwt({ id: "1", privateKey: PEM }, NOW),
    );
  });
});

describe("createInstallationToken", () => {
  function fakeClient(
    installed: boolean,
    seen: string[],
    workflows = "read",
    clock = { now: () => NOW },
  ): (auth: string) => GitHubClient {
    return (auth) =>
      ({
        rest: {
          apps: {
            getRepoInstallation: async (params: { owner: string; repo: string }) => {
              seen.push(
                `installation ${params.owner}/${params.repo} as ${auth.split(".").length === 3 ? "jwt" : auth}`,
              );
              if (!installed) throw Object.assign(new Error("Not Found"), { status: 404 });
              return { data: { id: 42 } };
            },
            getAuthenticated: async () => ({ data: { slug: "patchwright-dev" } }),
            createInstallationAccessToken: async (params: {
              installation_id: number;
              repositories: string[];
            }) => {
              seen.push(`token for ${params.installation_id} on ${params.repositories.join(",")}`);
              const minted = seen.filter((line) => line.startsWith("token for")).length;
              return {
                data: {
                  token: minted === 1 ? "ghs_installation" : `ghs_installation${minted}`,
                  // GitHub's tokens last an hour from when they are minted.
                  expires_at: new Date(clock.now() + 60 * 60_000).toISOString(),
                  permissions: { contents: "write", workflows },
                },
              };
            },
          },
        },
      }) as unknown as GitHubClient;
  }

  it("finds the installation for the repository and asks for a token limited to it", async () => {
    const seen: string[] = [];
    const auth = await createInstallationToken({
      app: { id: "12345", privateKey: PEM },
      owner: "octo-org",
      repo: "demo",
      clock: { now: () => NOW },
      clientFor: fakeClient(true, seen),
    });
    expect(auth).toMatchObject({
      token: "ghs_installation",
      botLogin: "patchwright-dev[bot]",
      canPushWorkflows: false,
    });
    expect(seen).toEqual(["installation octo-org/demo as jwt", "token for 42 on demo"]);
  });

  it("hands out the token until ten minutes before its hour ends, then mints another with a new JWT", async () => {
    let now = NOW;
    const clock = { now: () => now };
    const seen: string[] = [];
    const renewed: string[] = [];
    const jwts: string[] = [];
    const auth = await createInstallationToken({
      app: { id: "12345", privateKey: PEM },
      owner: "octo-org",
      repo: "demo",
      clock,
      clientFor: (jwt) => {
        jwts.push(jwt);
        return fakeClient(true, seen, "read", clock)(jwt);
      },
      onRenewed: (token) => renewed.push(token),
    });
    now += 49 * 60_000;
    expect(await auth.current?.()).toBe("ghs_installation");
    now += 2 * 60_000;
    // Commands asking at once share one new token.
    const asked = await Promise.all([auth.current?.(), auth.current?.()]);
    expect(asked).toEqual(["ghs_installation2", "ghs_installation2"]);
    expect(await auth.current?.()).toBe("ghs_installation2");
    expect(renewed).toEqual(["ghs_installation2"]);
    // The first JWT lived ten minutes: the renewal signed a new one.
    expect(jwts.map((jwt) => decode(jwt.split(".")[1]).iat)).toEqual([
      NOW / 1000 - 60,
      (NOW + 51 * 60_000) / 1000 - 60,
    ]);
    expect(seen).toEqual([
      "installation octo-org/demo as jwt",
      "token for 42 on demo",
      "token for 42 on demo",
    ]);
  });

  it("reads from the token's permissions whether it may push workflow changes", async () => {
    const auth = await createInstallationToken({
      app: { id: "12345", privateKey: PEM },
      owner: "octo-org",
      repo: "demo",
      clock: { now: () => NOW },
      clientFor: fakeClient(true, [], "write"),
    });
    expect(auth.canPushWorkflows).toBe(true);
  });

  it("says when the App is not installed on the repository", async () => {
    await expect(
      createInstallationToken({
        app: { id: "12345", privateKey: PEM },
        owner: "octo-org",
        repo: "demo",
        clock: { now: () => NOW },
        clientFor: fakeClient(false, []),
      }),
    ).rejects.toThrow(
      /^the App 12345 is not installed on octo-org\/demo \(or app_id and private_key do not match\)/,
    );
  });

  it("names the private_key input when the key cannot sign", async () => {
    await expect(
      createInstallationToken({
        app: {
          id: "12345",
          privateKey: "-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----",
        },
        owner: "octo-org",
        repo: "demo",
        clock: { now: () => NOW },
        clientFor: fakeClient(true, []),
      }),
    ).rejects.toThrow(/^input private_key: could not sign with it/);
  });
});
