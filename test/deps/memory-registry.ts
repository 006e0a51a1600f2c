import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { parseDepsConfig } from "../../src/deps/config.js";
import type { DepsGroupResult } from "../../src/deps/group/group-result.js";
import type { UpdateGroup } from "../../src/deps/plan/groups.js";
import type { NodeTarget } from "../../src/deps/plan/node/node-version.js";
import { planDepsUpdates } from "../../src/deps/plan/plan.js";
import type { Advisory, Packument, RegistryClient } from "../../src/deps/registry/registry.js";

/**
 * Plans without a real registry: a registry client in memory answers
 * packuments and advisories, and the projects are files on disk.
 */

export const DAY = 86_400_000;
export const NOW = Date.parse("2026-12-01T00:00:00Z");

export interface VersionInfo {
  /** Days before NOW it was published (default 100). */
  daysAgo?: number;
  /** engines.node */
  node?: string;
  peers?: Record<string, string>;
}

/** A packument: `latest` is the last version listed unless `tags` says otherwise. */
export function packument(
  name: string,
  versions: string[] | Record<string, VersionInfo>,
  tags: Record<string, string> = {},
): Packument {
  const infos: Record<string, VersionInfo> = Array.isArray(versions)
    ? Object.fromEntries(versions.map((v) => [v, {}]))
    : versions;
  const list = Object.keys(infos);
  return {
    name,
    "dist-tags": { latest: list.at(-1) ?? "", ...tags },
    versions: Object.fromEntries(
      Object.entries(infos).map(([v, info]) => [
        v,
        {
          version: v,
          ...(info.node ? { engines: { node: info.node } } : {}),
          ...(info.peers ? { peerDependencies: info.peers } : {}),
        },
      ]),
    ),
    time: Object.fromEntries(
      Object.entries(infos).map(([v, info]) => [
        v,
        new Date(NOW - (info.daysAgo ?? 100) * DAY).toISOString(),
      ]),
    ),
  };
}

export function memoryRegistry(
  packuments: Packument[],
  advisories: Record<string, Advisory[]> | Error = {},
): RegistryClient {
  const byName = new Map(packuments.map((p) => [p.name, p]));
  return {
    packument: async (name) => {
      const found = byName.get(name);
      if (!found) throw new Error(`no packument for ${name}`);
      return found;
    },
    tarball: async () => Buffer.alloc(0),
    advisories: async (asked) => {
      if (advisories instanceof Error) throw advisories;
      return Object.fromEntries(Object.entries(advisories).filter(([name]) => name in asked));
    },
    registryFor: () => "http://registry.invalid/",
  };
}

export const npmLock = (versions: Record<string, string>) =>
  JSON.stringify({
    lockfileVersion: 3,
    packages: {
      "": {},
      ...Object.fromEntries(
        Object.entries(versions).map(([name, version]) => [`node_modules/${name}`, { version }]),
      ),
    },
  });

export async function writeProject(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** A plan of `files` written under `dir`, with cooldown 0 unless `deps` says otherwise. */
export async function planProject(
  dir: string,
  files: Record<string, string>,
  registry: RegistryClient,
  deps: Record<string, unknown> = {},
) {
  await writeProject(dir, files);
  const parsed = parseDepsConfig({ cooldown_days: 0, ...deps });
  if (!parsed.ok) throw new Error(parsed.message);
  return planDepsUpdates({
    dir,
    config: parsed.config,
    env: { HOME: dir },
    clock: { now: () => NOW },
    registry,
    runningNode: "v20.18.0",
  });
}

/**
 * `planOf(files, registry, deps)` for a test file: each call plans a new
 * project folder under one temporary root, removed after the file's tests.
 */
export function projectPlanner(prefix: string) {
  let root = "";
  let count = 0;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return (
    files: Record<string, string>,
    registry: RegistryClient,
    deps: Record<string, unknown> = {},
  ) => planProject(join(root, `p${count++}`), files, registry, deps);
}

/** `.nvmrc` 24: the development Node a rendered plan states. */
export const NVMRC_24: NodeTarget = {
  label: "24.x",
  version: "24.999999.999999",
  source: ".nvmrc",
  role: "development",
};

/** A group that shipped as planned, for the pull request body. */
export function greenResult(group: UpdateGroup): DepsGroupResult {
  return {
    group,
    branch: `agent/deps/${group.slug}`,
    status: "green",
    applied: group.updates,
    leftOut: [],
    commits: [],
    durationMs: 0,
  };
}
