import { parse as parseYaml } from "yaml";
import type { LockReader } from "../types.js";

/**
 * pnpm-lock.yaml: per importer (".", "packages/a"), each dependency's
 * version, peer suffix "(react@18.2.0)" dropped (lockfile v6 and v9; v5's
 * top-level map for the root).
 */
export function readPnpmLockfile(text: string): LockReader {
  const doc = (parseYaml(text) ?? {}) as {
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
