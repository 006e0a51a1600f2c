import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { bundleAction } from "../scripts/bundle-action.mjs";

/**
 * Built once for the whole run instead of once per test file: the Action
 * bundle (from the current sources), and the Node 24 the Action declares in
 * action.yml, from the npm registry's Node builds (cached by npx after the
 * first run).
 */

export const NODE_24 = "24.9.0";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory holding dist/ as the current sources bundle to. */
    actionBundleDir: string;
    /** The Node 24 executable, or "" with the reason in node24Problem. */
    node24: string;
    node24Problem: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "pw-action-dist-"));
  const [node24] = await Promise.all([findNode24(), bundleAction(dir)]);
  project.provide("actionBundleDir", dir);
  project.provide("node24", node24.path);
  project.provide("node24Problem", node24.problem);
  return () => rm(dir, { recursive: true, force: true });
}

async function findNode24(): Promise<{ path: string; problem: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      "npx",
      ["-y", `node@${NODE_24}`, "-p", "process.execPath"],
      { timeout: 180_000 },
    );
    return { path: stdout.trim(), problem: "" };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { path: "", problem: `npx -y node@${NODE_24} failed: ${reason}` };
  }
}
