import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bundleAction } from "../scripts/bundle-action.mjs";
import { SCRATCH_PREFIX } from "../src/scratch.js";
import { findNode24 } from "./helpers/node24.js";
import { makeRunTemp } from "./helpers/run-temp.js";
import { buildSources } from "./helpers/source-build.js";

/**
 * Built once for the whole run instead of once per test file: the Action
 * bundle (from the current sources), the sources compiled to JavaScript for
 * the tests that start the App or the CLI as a process, the Node 24 the
 * Action declares in action.yml, from the npm registry's Node builds (cached
 * by npx after the first run), and a folder for the test repositories'
 * templates. And the run's temporary folder (helpers/run-temp.ts), which
 * every worker and process inherits as TMPDIR and which goes at the end
 * with whatever the run left in it.
 */

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory holding dist/ as the current sources bundle to. */
    actionBundleDir: string;
    /** The current sources compiled to JavaScript (helpers/source-build.ts). */
    sourceBuildDir: string;
    /** The Node 24 executable, or "" with the reason in node24Problem. */
    node24: string;
    node24Problem: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // First: tmpdir() follows TMPDIR, here and in the workers, which start after this.
  const runTemp = makeRunTemp(process.env).dir;
  process.env.TMPDIR = runTemp;
  // Shared by the workers, which start after this and inherit it (test/helpers/git-repos.ts).
  const templates = await mkdtemp(join(tmpdir(), "pw-repo-templates-"));
  process.env.PW_REPO_TEMPLATES = templates;
  const dir = await mkdtemp(join(tmpdir(), "pw-action-dist-"));
  const sources = await mkdtemp(join(tmpdir(), "pw-sources-"));
  const [node24] = await Promise.all([findNode24(), bundleAction(dir), buildSources(sources)]);
  // After npx has fetched Node 24 (through the host's network, which may need it), and before
  // the workers start: the tests are offline, and Node 20 parses every certificate this
  // variable names when it starts, used or not (54 ms of CPU for a 144-certificate system
  // bundle, in each of the suite's node, npm, pnpm and yarn processes). The tests of company
  // networks make their own CA and name it (test/helpers/company-network.ts).
  delete process.env.NODE_EXTRA_CA_CERTS;
  project.provide("actionBundleDir", dir);
  project.provide("sourceBuildDir", sources);
  project.provide("node24", node24.path);
  project.provide("node24Problem", node24.problem);
  return async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(sources, { recursive: true, force: true });
    await rm(templates, { recursive: true, force: true });
    try {
      await failOnLeftScratch();
    } finally {
      await rm(runTemp, { recursive: true, force: true });
    }
  };
}

/** The product's scratch folders (src/scratch.ts) in the run's temporary folder. */
function scratchFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(SCRATCH_PREFIX));
}

/**
 * A job removes its scratch folders when its work is done; only a process
 * killed mid-job leaves its own, and the processes tests start get a TMPDIR
 * in the test's folder (helpers/git-repos.ts gitTestEnv). So a scratch folder
 * the run left in its temporary folder is a cleanup that did not run (in an
 * App, a folder per job until a restart sweeps it) or a test that killed a
 * process started without that environment: the run fails, naming them.
 */
async function failOnLeftScratch(): Promise<void> {
  // A process that removes its folder as it ends (a worker's spawner helper,
  // once its worker is gone) may still be ending as vitest calls this: seen
  // once in a run on tmpfs. Five seconds for such folders to go.
  let left = scratchFolders();
  for (let waited = 0; left.length > 0 && waited < 5_000; waited += 50) {
    await new Promise((wait) => setTimeout(wait, 50));
    left = scratchFolders();
  }
  if (left.length === 0) return;
  // Vitest prints an error thrown here and still exits 0.
  process.exitCode = 1;
  throw new Error(
    `the run left ${left.length} scratch folder(s) in its temporary folder: ${left.slice(0, 6).join(", ")}`,
  );
}
