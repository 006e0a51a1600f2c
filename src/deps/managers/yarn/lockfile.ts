import { parse as parseYaml } from "yaml";
import type { LockReader } from "../types.js";

/**
 * yarn.lock, classic and berry: the entry whose descriptor list holds
 * `name@spec` (berry writes `name@npm:spec`).
 */

/** Yarn 2+ writes YAML with a `__metadata` entry; yarn 1 its own format. */
export function isBerryLockfile(text: string): boolean {
  return text.includes("__metadata:");
}

export function readYarnLockfile(text: string): LockReader {
  const byDescriptor = isBerryLockfile(text) ? berryEntries(text) : classicEntries(text);
  const entryOf = (name: string, spec: string) =>
    byDescriptor.get(`${name}@${spec}`) ?? byDescriptor.get(`${name}@npm:${spec}`);
  return {
    versionOf: (_manifestDir, name, spec) => entryOf(name, spec)?.version,
    // Berry resolves a range a workspace satisfies to it ("a@workspace:packages/a").
    linkedOf: (_manifestDir, name, spec) => {
      const entry = entryOf(name, spec);
      return entry === undefined ? undefined : entry.resolution.includes("@workspace:");
    },
    peerDeclarers: () => new Map(),
  };
}

interface YarnEntry {
  version: string;
  resolution: string;
}

/** Yarn 1's own format: `"a@^1.0.0", a@^1.1.0:` then an indented `version "1.2.3"`. */
function classicEntries(text: string): Map<string, YarnEntry> {
  const out = new Map<string, YarnEntry>();
  let keys: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^\S.*:$/.test(line) && !line.startsWith("#")) {
      keys = line
        .slice(0, -1)
        .split(/,\s*/)
        .map((k) => k.trim().replace(/^"|"$/g, ""));
      continue;
    }
    const version = /^\s+version:?\s+"?([^"\s]+)"?\s*$/.exec(line)?.[1];
    if (version && keys.length > 0) {
      for (const key of keys) out.set(key, { version, resolution: "" });
      keys = [];
    }
  }
  return out;
}

/** Yarn 2+ writes YAML: `"a@npm:^1.0.0, a@npm:^1.1.0": { version: 1.2.3, resolution: … }`. */
function berryEntries(text: string): Map<string, YarnEntry> {
  const out = new Map<string, YarnEntry>();
  const doc = (parseYaml(text) ?? {}) as Record<
    string,
    { version?: unknown; resolution?: unknown }
  >;
  for (const [descriptors, entry] of Object.entries(doc)) {
    if (descriptors === "__metadata" || typeof entry?.version !== "string") continue;
    const resolution = typeof entry.resolution === "string" ? entry.resolution : "";
    for (const key of descriptors.split(/,\s*/))
      out.set(key.trim(), { version: entry.version, resolution });
  }
  return out;
}

/**
 * Yarn 1's lockfile without the entries of the kept ranges, so other
 * ranges of the package elsewhere in the tree stay where they are. Its
 * entries start at an unindented `"a@^1.0.0", a@~1.1.0:` line and run to the next one.
 */
export function forgetInYarnClassic(text: string, descriptors: readonly string[]): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^\S.*:$/.test(line) && !line.startsWith("#")) {
      dropping = line
        .slice(0, -1)
        .split(/,\s*/)
        .some((d) => descriptors.includes(d.trim().replace(/^"|"$/g, "")));
    } else if (line === "" && dropping) {
      // The blank line after an entry goes with it.
      dropping = false;
      continue;
    }
    if (!dropping) out.push(line);
  }
  return out.join("\n");
}
