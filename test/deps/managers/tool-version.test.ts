import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolWarnings } from "../../../src/deps/managers/tool-version.js";
import type { DetectedManager } from "../../../src/deps/managers/types.js";
import type { ProjectNodes } from "../../../src/deps/plan/node/project-node.js";

/**
 * hono pins bun@1.2.20; a job on a host with bun 1.4.5 relocked bun.lock
 * with 1.4.5 and said nothing. The job says so before its first group, beside
 * an older Node than the project's.
 */

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-tool-version-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A folder with a `node` and a `bun` that answer --version as given. */
async function bin(versions: { node: string; bun?: string }): Promise<string> {
  const dir = await mkdtemp(join(root, "bin-"));
  await mkdir(dir, { recursive: true });
  for (const [tool, version] of Object.entries(versions)) {
    await writeFile(join(dir, tool), `#!/bin/sh\necho ${version}\n`);
    await chmod(join(dir, tool), 0o755);
  }
  return dir;
}

const bun = (pinned?: string): DetectedManager => ({
  name: "bun",
  lockfile: "bun.lock",
  evidence: pinned ? `package.json "packageManager": "${pinned}"` : "bun.lock",
  ...(pinned ? { pinned } : {}),
});
const nodes: ProjectNodes = {
  development: { label: "24.x", version: "24.999.999", source: ".nvmrc", role: "development" },
  engines: {},
};

describe("the tools a dependency job's commands get", () => {
  it("says when the PATH's bun is another minor than the pinned one, and the older Node", async () => {
    const dir = await bin({ node: "v20.5.0", bun: "1.4.5" });
    const env = { PATH: `${dir}:/usr/bin:/bin` };
    expect(await toolWarnings({ nodes, manager: bun("bun@1.2.20"), env })).toEqual([
      expect.stringMatching(
        /^the project wants Node 24\.x \(\.nvmrc\), and the job's commands run Node 20\.5\.0/,
      ),
      `the project pins bun 1.2.20 (package.json "packageManager"), and the job's commands run bun 1.4.5 (${dir}/bun): bun.lock is written as bun 1.4.5 writes it. Install bun 1.2 where patchwright runs (oven-sh/setup-bun with bun-version-file: package.json) to match.`,
    ]);
  });

  it("says nothing of a bun on the pinned minor, an unpinned one, or another tool", async () => {
    const dir = await bin({ node: "v24.7.0", bun: "1.2.23" });
    const env = { PATH: `${dir}:/usr/bin:/bin` };
    expect(await toolWarnings({ nodes, manager: bun("bun@1.2.20"), env })).toEqual([]);
    expect(await toolWarnings({ nodes, manager: bun(), env })).toEqual([]);
    const pnpm: DetectedManager = { ...bun("pnpm@10.1.0"), name: "pnpm" };
    expect(await toolWarnings({ nodes, manager: pnpm, env })).toEqual([]);
    // The operator's own bun (deps.packageManagers) is the one asked.
    const other = await bin({ node: "v24.7.0", bun: "1.3.0" });
    const tools = { bun: join(other, "bun") };
    expect(await toolWarnings({ nodes, manager: bun("bun@1.2.20"), env, tools })).toEqual([
      expect.stringContaining(`run bun 1.3.0 (${other}/bun)`),
    ]);
  });
});
