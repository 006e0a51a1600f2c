import { parse as parseYaml } from "yaml";

/**
 * Installed versions from pnpm's and yarn's lockfiles, for the plan's
 * "from" version (npm's package-lock.json is read in project.ts):
 * - pnpm-lock.yaml: per importer (".", "packages/a"), each dependency's
 *   version, peer suffix "(react@18.2.0)" dropped (lockfile v6 and v9; v5's
 *   top-level map for the root);
 * - yarn.lock, classic and berry: the entry whose descriptor list holds
 *   `name@spec` (berry writes `name@npm:spec`);
 * - bun.lock (bun 1.2+, JSON with trailing commas): the workspace's own
 *   entry `<workspace name>/<name>` when it needs another version than the
 *   root, else the hoisted `<name>`; each entry starts with `name@version`.
 */

/** The version the lockfile resolved for a manifest's dependency. */
export type LockedVersionOf = (
  manifestDir: string,
  name: string,
  spec: string,
) => string | undefined;

/**
 * Whether the lockfile links a manifest's dependency to a workspace package
 * (true) or resolves it from a registry (false); undefined when it does not
 * say (yarn 1 never records workspace packages).
 */
export type LinkedOf = (manifestDir: string, name: string, spec: string) => boolean | undefined;

export interface LockReader {
  versionOf: LockedVersionOf;
  linkedOf: LinkedOf;
}

/** The reader for pnpm's, yarn's or bun's lockfile, by its file name. */
export function readLockfile(lockfilePath: string, text: string): LockReader {
  if (lockfilePath.endsWith("pnpm-lock.yaml")) return pnpmReader(text);
  if (lockfilePath.endsWith("bun.lock")) return bunReader(text);
  return yarnReader(text);
}

function pnpmReader(text: string): LockReader {
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
  };
}

function yarnReader(text: string): LockReader {
  const byDescriptor = text.includes("__metadata:") ? berryEntries(text) : classicEntries(text);
  const entryOf = (name: string, spec: string) =>
    byDescriptor.get(`${name}@${spec}`) ?? byDescriptor.get(`${name}@npm:${spec}`);
  return {
    versionOf: (_manifestDir, name, spec) => entryOf(name, spec)?.version,
    // Berry resolves a range a workspace satisfies to it ("a@workspace:packages/a").
    linkedOf: (_manifestDir, name, spec) => {
      const entry = entryOf(name, spec);
      return entry === undefined ? undefined : entry.resolution.includes("@workspace:");
    },
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

function bunReader(text: string): LockReader {
  const doc = JSON.parse(withoutTrailingCommas(text)) as {
    workspaces?: Record<string, { name?: unknown }>;
    packages?: Record<string, unknown>;
  };
  const packages = doc.packages ?? {};
  const idAt = (key: string): string | undefined => {
    const entry = packages[key];
    return Array.isArray(entry) && typeof entry[0] === "string" ? entry[0] : undefined;
  };
  const versionAt = (key: string): string | undefined => {
    const id = idAt(key);
    // "name@1.2.3", "@scope/name@1.2.3"; a workspace's own is "a@workspace:packages/a".
    const version = id?.slice(id.lastIndexOf("@") + 1);
    return version && /^\d+\.\d+\.\d+/.test(version) ? version : undefined;
  };
  const keyOf = (manifestDir: string, name: string): string => {
    const owner = manifestDir ? doc.workspaces?.[manifestDir]?.name : undefined;
    const own = typeof owner === "string" ? `${owner}/${name}` : undefined;
    return own && idAt(own) ? own : name;
  };
  return {
    versionOf: (manifestDir, name) => versionAt(keyOf(manifestDir, name)),
    linkedOf: (manifestDir, name) => {
      const id = idAt(keyOf(manifestDir, name));
      return id === undefined ? undefined : id.includes("@workspace:");
    },
  };
}

/** bun.lock is JSON but for the trailing commas bun writes (and comments JSONC allows). */
function withoutTrailingCommas(text: string): string {
  let out = "";
  let pendingComma = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"') {
      const end = stringEnd(text, i);
      out += `${pendingComma ? "," : ""}${text.slice(i, end)}`;
      pendingComma = false;
      i = end - 1;
    } else if (char === "/" && text[i + 1] === "/") {
      i = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i) - 1;
    } else if (char === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (char === ",") {
      if (pendingComma) out += ",";
      pendingComma = true;
    } else if (/\s/.test(char)) {
      out += char;
    } else {
      // A comma right before a closing bracket is the trailing one: dropped.
      if (pendingComma && char !== "}" && char !== "]") out += ",";
      pendingComma = false;
      out += char;
    }
  }
  return out;
}

/** The index just past the string literal that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  throw new SyntaxError("unterminated string");
}
