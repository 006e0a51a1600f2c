import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { satisfies, valid } from "semver";
import type { Packument } from "../registry/registry.js";
import { type PinnedRelease, pinnedRelease } from "./index.js";
import type { DetectedManager } from "./types.js";

/**
 * Whether the package manager package.json pins (`"packageManager":
 * "pnpm@11.19.0"`, which corepack fetches) runs on the Node the project's
 * commands get. pnpm 11 needs Node 22.13, and on Node 20 every lockfile
 * step of every group would fail with pnpm's engine error, which the agent
 * would then be asked to fix. Checked once, before any group, from the
 * release's `engines` on the registry, for the tools whose launcher is
 * corepack, which runs the pinned release (pnpm, yarn). npm is the one
 * that comes with Node, whatever the field pins: lerna pins `npm@12.0.1`
 * (Node 22.22 and up), and the job was stopped on Node 20 for a release it
 * would never run. bun is no Node program.
 */
export async function pinnedToolEngineProblem(options: {
  manager: DetectedManager;
  /** The commands' environment: its PATH's node is the one the tool runs on. */
  env: Record<string, string>;
  packument: (name: string) => Promise<Packument>;
  /** The Node to judge by when the PATH has none (this process's). */
  fallbackNode?: string;
}): Promise<string | undefined> {
  const refusal = await pinnedReleaseRefusal({
    ...options,
    engines: async (release) => {
      const packument = await options.packument(release.releasePackage).catch(() => undefined);
      return packument?.versions[release.version]?.engines?.node;
    },
  });
  if (!refusal) return undefined;
  const { tool, version, engines, node } = refusal;
  return `this repository pins ${tool} ${version} (package.json "packageManager"), which needs Node ${engines}, and its commands would run on Node ${node}: run patchwright on a Node that ${tool} ${version} accepts (the Docker image and the Action use Node 24). Nothing was changed.`;
}

/** A pinned release whose `engines.node` the commands' Node does not satisfy. */
export interface NodeRefusal {
  tool: string;
  version: string;
  engines: string;
  node: string;
}

/**
 * Whether the release package.json pins, when corepack starts it, refuses
 * the commands' Node (the first `node` on their PATH, else `fallbackNode`,
 * else this process's), by its `engines.node` as `engines` reads them: from
 * the registry before a dependency job, from the release corepack fetched
 * after a prompt job's fetch failed.
 */
export async function pinnedReleaseRefusal(options: {
  manager: DetectedManager;
  env: Readonly<Record<string, string>>;
  engines: (release: PinnedRelease) => Promise<unknown>;
  fallbackNode?: string | undefined;
}): Promise<NodeRefusal | undefined> {
  const pinned = pinnedRelease(options.manager.pinned);
  const startedPinned = pinned?.manager.launcher?.command.startsWith("corepack ");
  if (!pinned || !valid(pinned.version) || !startedPinned) return undefined;
  const engines = await options.engines(pinned);
  if (typeof engines !== "string") return undefined;
  const node =
    (await nodeOnPath(options.env.PATH ?? "")) ?? options.fallbackNode ?? process.versions.node;
  if (satisfies(node, engines, { includePrerelease: true })) return undefined;
  return { tool: pinned.tool, version: pinned.version, engines, node };
}

/**
 * The version of the first `node` on `path` ("20.20.2"), or undefined.
 * Only a file that is there and executable is started, and a program's
 * answer is kept for as long as the file is the same one (its inode, size
 * and mtime): a dependency job asks several times (the tool check, the
 * Node warnings, each pinned release), and every PATH folder without a
 * node cost a process start before.
 */
export async function nodeOnPath(path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter((d) => isAbsolute(d))) {
    const file = join(dir, "node");
    const identity = await programIdentity(file);
    if (identity === undefined) continue;
    let answer = knownVersions.get(identity);
    if (!answer) {
      answer = programVersion(file);
      knownVersions.set(identity, answer);
    }
    const version = await answer;
    // A program that did not answer (a timeout on a busy machine) is asked again next time.
    if (version === undefined) knownVersions.delete(identity);
    else return version;
  }
  return undefined;
}

/** `node --version` answers by the file that gave them. */
const knownVersions = new Map<string, Promise<string | undefined>>();

/** Which file `file` is, when it is an executable file; undefined when it is not there. */
async function programIdentity(file: string): Promise<string | undefined> {
  try {
    await access(file, constants.X_OK);
    const found = await stat(file);
    if (!found.isFile()) return undefined;
    return `${file}\0${found.dev}:${found.ino}\0${found.size}\0${found.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/** What `file --version` prints ("v20.20.2" as "20.20.2"), or undefined when it does not run. */
export function programVersion(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ["--version"], { timeout: 10_000 }, (error, out) =>
      resolve(error ? undefined : out.trim().replace(/^v/, "")),
    );
  });
}
