import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readUserIdentity } from "../../src/cli/user-identity.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** An environment whose git sees only `globalConfig` (and the directory's own config). */
async function userEnv(globalConfig: string): Promise<Record<string, string>> {
  const home = await makeTempDir();
  const file = join(home, ".gitconfig");
  await writeFile(file, globalConfig);
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: file,
  };
}

describe("the user's git identity", () => {
  it("is user.name and user.email from the user's own git config", async () => {
    const env = await userEnv("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n");
    expect(await readUserIdentity({ env, cwd: env.HOME ?? "/" })).toEqual({
      name: "Ada Lovelace",
      email: "ada@example.com",
    });
  });

  it("takes GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL first", async () => {
    const env = await userEnv("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n");
    const identity = await readUserIdentity({
      env: { ...env, GIT_AUTHOR_NAME: "Grace Hopper", GIT_AUTHOR_EMAIL: "grace@example.com" },
      cwd: env.HOME ?? "/",
    });
    expect(identity).toEqual({ name: "Grace Hopper", email: "grace@example.com" });
  });

  it("sees the config of the repository the user runs in, as their git would", async () => {
    const env = await userEnv("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n");
    const repo = await makeTempDir();
    execFileSync("git", ["init", "-q"], { cwd: repo, env });
    execFileSync("git", ["config", "user.email", "ada@work.example.com"], { cwd: repo, env });
    expect(await readUserIdentity({ env, cwd: repo })).toEqual({
      name: "Ada Lovelace",
      email: "ada@work.example.com",
    });
  });

  it("is patchwright only when nothing is configured", async () => {
    const env = await userEnv("");
    expect(await readUserIdentity({ env, cwd: env.HOME ?? "/" })).toEqual({
      name: "patchwright",
      email: "patchwright@users.noreply.github.com",
    });
    expect(await readUserIdentity({ env, cwd: "/no/such/dir" })).toMatchObject({
      name: "patchwright",
    });
  });
});
