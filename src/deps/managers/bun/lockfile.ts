import type { LockReader } from "../types.js";

/**
 * bun.lock (bun 1.2+, JSON with trailing commas): the workspace's own
 * entry `<workspace name>/<name>` when it needs another version than the
 * root, else the hoisted `<name>`; each entry starts with `name@version`.
 */
export function readBunLockfile(text: string): LockReader {
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
    peerDeclarers: () => new Map(),
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
