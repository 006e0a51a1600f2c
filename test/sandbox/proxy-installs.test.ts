import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, runShellProcess } from "../../src/agent/shell-process.js";
import { type LocalRegistry, startLocalRegistry } from "../helpers/npm-registry.js";
import { sandboxFor } from "../helpers/sandbox.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/**
 * `npm install` in a sandbox whose network is the public proxy (`public`,
 * or `*` in a host list): it works through the proxy when the setting names
 * the registry's loopback address, and is refused when it does not, since
 * an address of this machine is never "public".
 */

let root: string;
let registry: LocalRegistry;

beforeAll(async () => {
  root = await makeTempDir();
  registry = await startLocalRegistry(root);
  await registry.publish({ name: "px-lib", version: "1.2.3" });
}, 60_000);

afterAll(async () => {
  await registry?.close();
});

async function install(network: "public" | string[]) {
  const workspace = await makeTempDir();
  await writeFile(
    join(workspace, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", dependencies: { "px-lib": "^1.0.0" } }),
  );
  const sandbox = await sandboxFor(workspace, { network });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    npm_config_registry: registry.url,
    npm_config_cache: join(workspace, ".npm-cache"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_fetch_retries: "0",
  };
  try {
    const outcome = await runShellProcess(
      await findShell(env.PATH),
      'npm install --no-package-lock 2>&1; echo "exit=$?"',
      120,
      { cwd: workspace, env, signal: new AbortController().signal, sandbox },
    );
    const installed = await readFile(
      join(workspace, "node_modules", "px-lib", "package.json"),
      "utf8",
    ).catch(() => undefined);
    return { output: outcome.stdout, installed };
  } finally {
    await sandbox.close();
  }
}

describe("npm through the public proxy", () => {
  it("installs from a registry the setting names", async () => {
    const { host } = new URL(registry.url);
    const { output, installed } = await install(["*", host]);
    expect(output).toContain("exit=0");
    expect(JSON.parse(installed ?? "{}").version).toBe("1.2.3");
  }, 120_000);

  it("cannot reach a registry on this machine that the setting does not name", async () => {
    const { output, installed } = await install("public");
    expect(installed).toBeUndefined();
    expect(output).not.toContain("exit=0");
    expect(output).toContain("403");
  }, 120_000);
});
