import { posix } from "node:path";
import { readWorkspaceText } from "../../../sandbox/host-files.js";

/**
 * The Node version a file names, read the way actions/setup-node reads its
 * `node-version-file` input (and nvm, fnm, asdf and mise read theirs):
 * - a package.json: `volta.node`, else a `devEngines.runtime` entry for
 *   node, else `engines.node`, else the file `volta.extends` names;
 * - an action's metadata: its `runs.using: nodeNN`;
 * - any other file (.nvmrc, .node-version, .tool-versions): the first line
 *   that is a version alone or `node`/`nodejs` and a version, comments
 *   left out.
 * The path is the repository's (setup-node takes it from the workspace's
 * root) and is never followed outside the tree.
 */

export interface VersionFileValue {
  /** The version as written: "24", "lts/*", ">=20.19.0". */
  value: string;
  /** The file and, for a manifest, the field: "package.json engines.node". */
  source: string;
}

export async function readNodeVersionFile(
  dir: string,
  path: string,
  depth = 0,
): Promise<VersionFileValue | undefined> {
  const file = posix.normalize(path.trim().replace(/^\.\//, ""));
  const text = await readWorkspaceText(dir, file).catch(() => undefined);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const using = /^\s+using:\s*["']?node(\d+)["']?\s*(?:#.*)?$/m.exec(text)?.[1];
    if (using) return { value: using, source: `${file} runs.using` };
    const value = versionInText(text);
    return value === undefined ? undefined : { value, source: file };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return undefined;
  const manifest = json as {
    volta?: { node?: unknown; extends?: unknown };
    engines?: { node?: unknown };
  };
  if (typeof manifest.volta?.node === "string")
    return { value: manifest.volta.node, source: `${file} volta.node` };
  const runtime = devEnginesNode(manifest);
  if (runtime !== undefined) return { value: runtime, source: `${file} devEngines.runtime` };
  if (typeof manifest.engines?.node === "string")
    return { value: manifest.engines.node, source: `${file} engines.node` };
  // Volta's workspaces: a package names the root's package.json to take its Node from.
  if (typeof manifest.volta?.extends === "string" && depth < 4)
    return readNodeVersionFile(
      dir,
      posix.join(posix.dirname(file), manifest.volta.extends),
      depth + 1,
    );
  return undefined;
}

/** The Node version of package.json's `devEngines.runtime` (one `{ name, version }` or a list of them). */
export function devEnginesNode(manifest: Record<string, unknown>): string | undefined {
  const runtime = (manifest.devEngines as { runtime?: unknown } | undefined)?.runtime;
  for (const entry of [runtime].flat()) {
    const { name, version } = (entry ?? {}) as { name?: unknown; version?: unknown };
    if (typeof name === "string" && name.toLowerCase() === "node" && typeof version === "string")
      return version;
  }
  return undefined;
}

/** The first line of a version file that names a Node: "24", "v24.7.0", "nodejs 22.12.0 20.18.0". */
export function versionInText(text: string): string | undefined {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, "").trim();
    // asdf and mise use the first version a `nodejs` line lists.
    const tool = /^node(?:js)?\s+(\S+)/.exec(line)?.[1];
    if (tool) return tool;
    if (/^\S+$/.test(line)) return line;
  }
  return undefined;
}
