import picomatch from "picomatch";
import { listWorkspaceFiles } from "../fs/workspace-files.js";

export interface WalkScope {
  root: string;
  env: Record<string, string>;
  signal: AbortSignal;
  /** Folder or file to search, relative to the root. */
  under: string;
  underIsFile: boolean;
  include?: string | undefined;
}

/**
 * The files to search in a workspace that is not a git repository: a
 * bounded directory walk (node_modules and .git skipped), filtered by the
 * include glob. `complete` is false when the walk stopped at its cap.
 */
export async function walkCandidates(
  scope: WalkScope,
): Promise<{ files: string[]; complete: boolean }> {
  if (scope.underIsFile) return { files: [scope.under], complete: true };
  const listing = await listWorkspaceFiles({
    root: scope.root,
    env: scope.env,
    signal: scope.signal,
    under: scope.under,
  });
  const included = scope.include
    ? picomatch(scope.include, { dot: true, basename: !scope.include.includes("/") })
    : () => true;
  const prefix = scope.under === "." ? "" : `${scope.under}/`;
  const files = listing.files.filter((path) => included(path.slice(prefix.length)));
  return { files, complete: listing.complete };
}
