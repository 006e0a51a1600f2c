import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readNpmConfig, registryFor, toFetchOptions } from "../../../src/deps/registry/npmrc.js";
import { makeTempDir } from "../../helpers/temp-dir.js";

describe("readNpmConfig", () => {
  it("layers the project's .npmrc over the user's and expands variables from the environment", async () => {
    const home = await makeTempDir();
    const project = await makeTempDir();
    const tokenLine = ["//npm.corp.example/:_authToken=$", "{CORP_TOKEN}"].join("");
    await writeFile(
      join(home, ".npmrc"),
      `registry=https://user.example/npm\n${tokenLine}\ncolor=false\n`,
    );
    await writeFile(
      join(project, ".npmrc"),
      "registry=https://project.example/\n@corp:registry=https://npm.corp.example/\n",
    );
    const config = await readNpmConfig({ dir: project, env: { HOME: home, CORP_TOKEN: "s3cret" } });
    expect(config.registry).toBe("https://project.example/");
    expect(config.options).toEqual({
      "@corp:registry": "https://npm.corp.example/",
      "//npm.corp.example/:_authToken": "s3cret",
    });
    expect(config.referencedEnv).toEqual(["CORP_TOKEN"]);
    expect(registryFor("@corp/ui", config)).toBe("https://npm.corp.example/");
    expect(registryFor("left-pad", config)).toBe("https://project.example/");
    expect(toFetchOptions(config)).toMatchObject({
      registry: "https://project.example/",
      "@corp:registry": "https://npm.corp.example/",
    });
  });

  it("defaults to the public registry and lets npm_config_registry win", async () => {
    const project = await makeTempDir();
    await mkdir(join(project, "empty-home"));
    expect(
      (await readNpmConfig({ dir: project, env: { HOME: join(project, "empty-home") } })).registry,
    ).toBe("https://registry.npmjs.org/");
    const fromEnv = await readNpmConfig({
      dir: project,
      env: { npm_config_registry: "http://127.0.0.1:4873" },
    });
    expect(fromEnv.registry).toBe("http://127.0.0.1:4873/");
    // pnpm 11 and later read pnpm_config_*: the sandboxes' npmrc takes it over npm's, and so does the plan.
    const fromPnpm = await readNpmConfig({
      dir: project,
      env: {
        npm_config_registry: "http://127.0.0.1:4873",
        pnpm_config_registry: "https://npm.corp.example",
      },
    });
    expect(fromPnpm.registry).toBe("https://npm.corp.example/");
  });
});
