import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeOnPath, pinnedToolEngineProblem } from "../../../src/deps/managers/tool-engines.js";
import type { DetectedManager } from "../../../src/deps/managers/types.js";
import type { Packument } from "../../../src/deps/registry/registry.js";
import { makeTempDir } from "../../helpers/temp-dir.js";

/** A folder whose `node` prints `version`, as the commands' PATH would find it. */
async function nodeAt(version: string): Promise<string> {
  const dir = join(await makeTempDir("pw-node-bin-"), "bin");
  await mkdir(dir);
  await writeFile(join(dir, "node"), `#!/bin/sh\necho v${version}\n`);
  await chmod(join(dir, "node"), 0o755);
  return dir;
}

const releases: Record<string, Packument> = {
  pnpm: {
    name: "pnpm",
    "dist-tags": {},
    time: {},
    versions: {
      "10.34.8": { version: "10.34.8", engines: { node: ">=18.12" } },
      "11.19.0": { version: "11.19.0", engines: { node: ">=22.13" } },
    },
  },
  npm: {
    name: "npm",
    "dist-tags": {},
    time: {},
    versions: {
      "12.0.1": { version: "12.0.1", engines: { node: "^22.22.2 || ^24.15.0 || >=26.0.0" } },
    },
  },
  "@yarnpkg/cli-dist": {
    name: "@yarnpkg/cli-dist",
    "dist-tags": {},
    time: {},
    versions: { "4.18.0": { version: "4.18.0", engines: { node: ">=18.12.0" } } },
  },
};

function check(pinned: string | undefined, path: string, asked: string[] = []) {
  const [tool] = (pinned ?? "npm@").split("@");
  const manager = {
    name: tool === "yarn" ? "yarn-berry" : tool,
    evidence: "package.json",
    ...(pinned ? { pinned } : {}),
  } as DetectedManager;
  return pinnedToolEngineProblem({
    manager,
    env: { PATH: path },
    packument: async (name) => {
      asked.push(name);
      const found = releases[name];
      if (!found) throw new Error(`${name}: not found`);
      return found;
    },
    fallbackNode: "24.9.0",
  });
}

describe("pinnedToolEngineProblem", () => {
  it("stops a job whose pinned tool would refuse the Node its commands get, saying what to do", async () => {
    const node20 = await nodeAt("20.20.2");
    expect(await check("pnpm@11.19.0+sha512.abc", node20)).toBe(
      'this repository pins pnpm 11.19.0 (package.json "packageManager"), which needs Node >=22.13, and its commands would run on Node 20.20.2: run patchwright on a Node that pnpm 11.19.0 accepts (the Docker image and the Action use Node 24). Nothing was changed.',
    );
    expect(await check("pnpm@11.19.0", await nodeAt("22.14.0"))).toBeUndefined();
    expect(await check("pnpm@10.34.8", node20)).toBeUndefined();
  });

  it("asks for yarn 2+'s own release package, and judges by this process's Node when the PATH has none", async () => {
    const asked: string[] = [];
    expect(await check("yarn@4.18.0", "/nonexistent", asked)).toBeUndefined();
    expect(asked).toEqual(["@yarnpkg/cli-dist"]);
    // fallbackNode 24.9.0 runs pnpm 11.
    expect(await check("pnpm@11.19.0", "/nonexistent")).toBeUndefined();
  });

  it("says nothing without a pin, for npm (Node's own runs) or bun, or when the registry cannot tell", async () => {
    const node20 = await nodeAt("20.20.2");
    const asked: string[] = [];
    expect(await check(undefined, node20, asked)).toBeUndefined();
    // lerna's pin: npm 12 needs Node 22.22, but the npm that runs is the PATH's own.
    expect(await check("npm@12.0.1", node20, asked)).toBeUndefined();
    expect(await check("bun@1.3.0", node20, asked)).toBeUndefined();
    expect(await check("pnpm@latest", node20, asked)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await check("pnpm@12.0.0", node20)).toBeUndefined();
    expect(await check("npm@11.0.0", node20)).toBeUndefined();
  });
});

describe("nodeOnPath", () => {
  /** A `node` that prints `version` and counts its starts in `log`. */
  async function countingNode(dir: string, version: string, log: string) {
    await writeFile(join(dir, "node"), `#!/bin/sh\necho x >> '${log}'\necho v${version}\n`);
    await chmod(join(dir, "node"), 0o755);
  }
  const starts = async (log: string) =>
    (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean).length;

  it("starts the first executable node on the PATH once, and again only when that file changes", async () => {
    const root = await makeTempDir("pw-node-on-path-");
    const [empty, notExecutable, bin, later] = ["empty", "plain", "bin", "later"].map((d) =>
      join(root, d),
    );
    for (const dir of [empty, notExecutable, bin, later]) await mkdir(dir as string);
    await writeFile(join(notExecutable as string, "node"), "#!/bin/sh\necho v1.0.0\n");
    const log = join(root, "starts.log");
    await countingNode(bin as string, "22.18.0", log);
    await countingNode(later as string, "26.1.0", log);
    const path = ["relative/bin", empty, notExecutable, bin, later].join(delimiter);
    expect(await nodeOnPath(path)).toBe("22.18.0");
    expect(await nodeOnPath(path)).toBe("22.18.0");
    expect(await starts(log)).toBe(1);
    // Another node in its place (a setup step installs one) is asked again.
    await countingNode(bin as string, "24.11.1", log);
    expect(await nodeOnPath(path)).toBe("24.11.1");
    expect(await starts(log)).toBe(2);
    // One that does not answer is passed over for the next, and asked again next time.
    await writeFile(join(bin as string, "node"), "#!/bin/sh\nexit 3\n");
    expect(await nodeOnPath(path)).toBe("26.1.0");
    expect(await nodeOnPath([empty].join(delimiter))).toBeUndefined();
  });
});
