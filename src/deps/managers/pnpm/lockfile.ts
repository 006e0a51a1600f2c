import { parse as parseYaml } from "yaml";
import type { LockReader } from "../types.js";

/**
 * pnpm-lock.yaml: per importer (".", "packages/a"), each dependency's
 * version, peer suffix "(react@18.2.0)" dropped (lockfile v6 and v9; v5's
 * top-level map for the root).
 */
export function readPnpmLockfile(text: string): LockReader {
  const doc = (parseYaml(importerSections(text)) ?? {}) as {
    importers?: Record<string, Record<string, Record<string, unknown>>>;
    dependencies?: Record<string, unknown>;
    devDependencies?: Record<string, unknown>;
    optionalDependencies?: Record<string, unknown>;
  };
  const importers = doc.importers ?? { ".": doc as Record<string, Record<string, unknown>> };
  const rawOf = (manifestDir: string, name: string): string | undefined => {
    const importer = importers[manifestDir || "."];
    for (const section of ["dependencies", "devDependencies", "optionalDependencies"]) {
      const entry = importer?.[section]?.[name];
      const raw =
        typeof entry === "string"
          ? entry
          : entry && typeof entry === "object"
            ? (entry as { version?: unknown }).version
            : undefined;
      if (typeof raw === "string") return raw;
    }
    return undefined;
  };
  return {
    versionOf: (manifestDir, name) => {
      // "1.2.3(react@18.2.0)", "1.2.3_react@18.2.0", or an alias's "lib@1.2.3".
      const raw = rawOf(manifestDir, name)
        ?.replace(/\(.*$/, "")
        .replace(/_.*$/, "")
        .replace(/^\/?(?:@[^/@]+\/)?[^/@]+@(?=\d)/, "");
      return raw && /^\d+\.\d+\.\d+/.test(raw) ? raw : undefined;
    },
    linkedOf: (manifestDir, name) => {
      const raw = rawOf(manifestDir, name);
      return raw === undefined ? undefined : raw.startsWith("link:");
    },
    peerDeclarers: () => new Map(),
  };
}

/** The top-level keys the reader uses: `importers`, and v5's root sections. */
const READ = new Set(["importers", "dependencies", "devDependencies", "optionalDependencies"]);

/**
 * Only the top-level blocks the reader uses, as YAML text. `packages:` and
 * `snapshots:` are nearly all of a workspace's lockfile, and parsing them
 * with the rest was most of a monorepo plan's CPU time (0.6 s of a 358 kB
 * file). A block is a top-level key at column 0 and the indented lines
 * under it, as pnpm writes them. A file of several YAML documents (pnpm's
 * config dependencies come first) is read from the last one that has such a
 * block; the whole file would not parse as one document.
 */
export function importerSections(text: string): string {
  let kept: string[] = [];
  let current: string[] = [];
  let keep = false;
  const endDocument = () => {
    if (current.length > 0) kept = current;
    current = [];
    keep = false;
  };
  for (const line of text.split(/\r?\n/)) {
    const first = line.charCodeAt(0);
    // Indented, blank or a comment: part of the block above it.
    if (line === "" || first === 32 || first === 9 || first === 35) {
      if (keep) current.push(line);
      continue;
    }
    if (line.startsWith("---") || line.startsWith("...")) {
      endDocument();
      continue;
    }
    const key = /^(["']?)([^"':]+)\1:(?:\s|$)/.exec(line)?.[2];
    keep = key !== undefined && READ.has(key);
    if (keep) current.push(line);
  }
  endDocument();
  return kept.join("\n");
}
