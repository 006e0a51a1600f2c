import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { editDistance } from "../../../edit-distance.js";
import type { ToolContext } from "../define-tool.js";
import { ToolError } from "../define-tool.js";
import { similarity } from "../edit/edit-closest.js";
import { isNotFound, resolveInWorkspace, type WorkspacePath } from "./paths.js";
import { keepExisting, listWorkspaceFiles } from "./workspace-files.js";

const MAX_SUGGESTIONS = 3;
/** Candidates compared in full after the cheap first pass. */
const MAX_COMPARED = 200;

export type MissingUse = "read" | "edit" | "search";

/**
 * Where a search tool looks (list_files, grep_search): the folder or file
 * its optional `path` names, or the workspace root without one, and what is
 * there. A path that is not there is notFoundError's answer for a search.
 */
export async function searchBase(
  ctx: ToolContext,
  written: string | undefined,
): Promise<{ base: WorkspacePath; info: Stats }> {
  const base = written
    ? await resolveInWorkspace(ctx.root, written)
    : { absolute: ctx.root, relative: "." };
  const info = await stat(base.absolute).catch(async (error: unknown) => {
    if (isNotFound(error)) throw await notFoundError(ctx, base, written ?? ".", "search");
    throw error;
  });
  return { base, info };
}

/**
 * "No such file", with the paths the model most likely meant: the same path
 * without stray spaces, another case, the same name in another folder, or a
 * near spelling. A bare "does not exist" costs a list_files call and a guess.
 */
export async function notFoundError(
  ctx: ToolContext,
  path: WorkspacePath,
  written: string,
  use: MissingUse = "read",
): Promise<ToolError> {
  const spaces =
    written !== written.trim()
      ? ` The path ${/^\s/.test(written) ? "starts" : "ends"} with a space, which is part of a file name here.`
      : "";
  const closest = await closestPaths(ctx, path.relative.trim()).catch(() => []);
  const suggestion =
    closest.length === 0
      ? ""
      : ` The closest existing path${closest.length === 1 ? " is" : "s are"} ${closest.map((p) => `"${p}"`).join(", ")}.`;
  const next =
    use === "edit"
      ? "Use the right path, create the file with write_file, or find it with list_files"
      : use === "search"
        ? "Use the right path, leave path out to search the whole workspace, or find the folder with list_files"
        : "Use the right path, or find it with list_files";
  const shown = spaces ? `"${path.relative}"` : path.relative;
  return new ToolError(
    `${shown} does not exist (no such file or directory).${spaces}${suggestion} ${next}.`,
  );
}

/** The few workspace paths (files and folders) nearest to `wanted`, best first. */
async function closestPaths(ctx: ToolContext, wanted: string): Promise<string[]> {
  const listing = await listWorkspaceFiles({
    root: ctx.root,
    env: ctx.env,
    signal: ctx.signal,
    under: ".",
    maxWalkEntries: 20_000,
  });
  const paths = new Set<string>();
  for (const file of listing.files) {
    paths.add(file);
    for (let at = file.indexOf("/"); at !== -1; at = file.indexOf("/", at + 1)) {
      paths.add(file.slice(0, at));
    }
  }
  const name = baseName(wanted).toLowerCase();
  const rough = [...paths]
    .map((p) => ({ p, score: roughScore(p, wanted, name) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_COMPARED);
  const ranked = rough
    .map(({ p }) => ({ p, distance: editDistance(p.toLowerCase(), wanted.toLowerCase()) }))
    .filter(
      ({ p, distance }) =>
        distance <= Math.max(3, Math.ceil(wanted.length / 3)) || sameName(p, name),
    )
    .sort((a, b) => a.distance - b.distance || a.p.length - b.p.length);
  // git lists tracked files deleted from the work tree too: only what is there is suggested.
  const { kept } = await keepExisting(
    ctx.root,
    ranked.map(({ p }) => p),
    MAX_SUGGESTIONS,
  );
  return kept;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function sameName(path: string, name: string): boolean {
  return name !== "" && baseName(path).toLowerCase() === name;
}

/** Cheap: the same file name anywhere, then shared character pairs of the names. */
function roughScore(path: string, wanted: string, name: string): number {
  if (path.toLowerCase() === wanted.toLowerCase()) return 3;
  if (sameName(path, name)) return 2;
  return similarity(baseName(path).toLowerCase(), name);
}
