import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bundleAction } from "../scripts/bundle-action.mjs";
import { findNode24 } from "./helpers/node24.js";
import { buildSources } from "./helpers/source-build.js";

/**
 * Built once for the whole run instead of once per test file: the Action
 * bundle (from the current sources), the sources compiled to JavaScript for
 * the tests that start the App or the CLI as a process, the Node 24 the
 * Action declares in action.yml, from the npm registry's Node builds (cached
 * by npx after the first run), and a folder for the test repositories'
 * templates.
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
  };
}
