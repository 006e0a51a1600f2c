import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { minVersion, valid } from "semver";
import { type GitEnv, runGit, runGitBuffer } from "../../git/git-client.js";
import { makeScratchDir } from "../../scratch.js";
import { PACKAGE_MANAGERS } from "../managers/index.js";
import type { DetectedManager } from "../managers/types.js";
import { catalogFirstUse, catalogOf, resolveCatalog } from "../plan/dependency-list.js";
import { lockedScriptsToReview, type UnreviewedPackage } from "../plan/install-scripts.js";
import { type DepEntry, type NpmProject, readNpmProject } from "../plan/project.js";
import { type Update, type UpdateLocation, updateType } from "../update.js";

/**
 * What another bot's dependency pull request changes, read from git alone:
 * the project's manifests and lockfile where the branch left its base and
 * at its head, each read the way the bump job reads a project (so every
 * package manager's lockfile and every workspace counts), and the
 * dependencies whose installed version moved between the two. A change of
 * range that leaves the version where it was is not an update. The project
 * is the one the pull request touches: Dependabot and Renovate update one
 * directory at a time (`directory: /web`), so its root is where the changed
 * lockfile is, else the shallowest changed package.json's folder.
 */

export interface PrBump {
  updates: Update[];
  manager: DetectedManager;
  /** The project's folder in the repository ("" for its root); manifest and lockfile paths include it. */
  root: string;
  lockfilePath: string | undefined;
  /** Where the branch left its base. */
  mergeBase: string;
  /** Install scripts the branch's lockfile newly locks that the project's policy (npm's allowScripts, pnpm's allowBuilds) leaves unreviewed. */
  unreviewedScripts: UnreviewedPackage[];
  /**
   * The overrides the branch changed: what decides the version of a package
   * it updates, or a package the project does not declare (Renovate's
   * security pin of a transitive dependency).
   */
  overrideMoves: OverrideMove[];
}

/**
 * An override (npm's `overrides`, pnpm's, yarn's and bun's `resolutions`)
 * whose value the pull request changed. Renovate bumps a held package
 * there, and a transitive one it pins: putting the package back means
 * putting the override back (npm refuses a direct dependency that
 * conflicts with its override; pnpm installs the override whatever the
 * range says).
 */
export interface OverrideMove {
  /** The package it holds. */
  name: string;
  /** The file, from the repository's root; the field ("overrides"); the keys down to the value. */
  file: string;
  field: string;
  path: string[];
  /** The key as written. */
  key: string;
  from: string;
  to: string;
}

/** The files a project's dependencies are read from. */
function isProjectFile(path: string): boolean {
  if (path.split("/").includes("node_modules")) return false;
  const name = posix.basename(path);
  return (
    name === "package.json" ||
    name === "pnpm-workspace.yaml" ||
    name === ".npmrc" ||
    name === ".yarnrc.yml" ||
    PACKAGE_MANAGERS.some((m) => m.lockfiles.includes(name))
  );
}

export async function readPrBump(options: {
  dir: string;
  env: GitEnv;
  /** Where the branch left its base. */
  mergeBase: string;
  /** A registry version's install scripts (pnpm's lockfile does not say); none: not checked for pnpm. */
  installScripts?: ((name: string, version: string) => Promise<string[]>) | undefined;
}): Promise<PrBump> {
  const { mergeBase } = options;
  const git = (args: string[]) => runGit(options.dir, args, { env: options.env });
  const changed = (await git(["diff", "--name-only", "-z", mergeBase, "HEAD"]))
    .split("\0")
    .filter((path) => path !== "" && isProjectFile(path));
  const root = projectRoot(changed);
  const paths = (await git(["ls-tree", "-r", "-z", "--name-only", mergeBase]))
    .split("\0")
    .filter((path) => path !== "" && isProjectFile(path));
  const scratch = await makeScratchDir("pr-base");
  try {
    for (const path of paths) {
      const content = await runGitBuffer(options.dir, ["show", `${mergeBase}:${path}`], {
        env: options.env,
      });
      await mkdir(dirname(join(scratch, path)), { recursive: true });
      await writeFile(join(scratch, path), content);
    }
    const [before, after] = await Promise.all([
      readNpmProject(join(scratch, root)),
      readNpmProject(join(options.dir, root)),
    ]);
    const inRoot = (path: string) => (root ? `${root}/${path}` : path);
    const lockfilePath = after.lockfilePath ? inRoot(after.lockfilePath) : undefined;
    const unreviewedScripts = await lockedScriptsToReview({
      dir: options.dir,
      lockfilePath,
      before: lockfilePath ? await readFile(join(scratch, lockfilePath)).catch(() => null) : null,
      installScripts: options.installScripts,
    });
    const updates = updatesBetween(before, after).map((update) => ({
      ...update,
      locations: update.locations.map((l) => ({ ...l, manifest: inRoot(l.manifest) })),
    }));
    return {
      updates,
      manager: after.manager,
      root,
      lockfilePath,
      mergeBase,
      unreviewedScripts,
      overrideMoves: overridesMoved(before, after).map((move) => ({
        ...move,
        file: inRoot(move.file),
      })),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The project a pull request's changed files belong to (see PrBump). */
export function projectRoot(changed: readonly string[]): string {
  const lockfile = changed.find((path) =>
    PACKAGE_MANAGERS.some((m) => m.lockfiles.includes(posix.basename(path))),
  );
  const manifests = changed
    .filter((path) => posix.basename(path) === "package.json")
    .sort((a, b) => a.split("/").length - b.split("/").length);
  const picked = lockfile ?? manifests[0];
  if (!picked) return "";
  const folder = posix.dirname(picked);
  return folder === "." ? "" : folder;
}

/** The dependencies whose version moved from one reading of a project to the other. */
export function updatesBetween(before: NpmProject, after: NpmProject): Update[] {
  const key = (dep: DepEntry) => `${dep.manifest}\0${dep.section}\0${dep.name}`;
  const old = new Map(before.manifests.flatMap((m) => m.deps.map((dep) => [key(dep), dep])));
  const byName = new Map<string, Moved[]>();
  const firstUse = catalogFirstUse();
  for (const manifest of after.manifests) {
    for (const dep of manifest.deps) {
      const was = old.get(key(dep));
      if (!was) continue;
      const from = versionOf(before, manifest.dir, was);
      const to = versionOf(after, manifest.dir, dep);
      if (!from || !to || from === to) continue;
      // A catalog's entry is where the range is (its catalog file), and moves once.
      const [then, now] = [resolveCatalog(before, was) ?? was, resolveCatalog(after, dep) ?? dep];
      if (!firstUse(now)) continue;
      const locations = byName.get(dep.name) ?? [];
      locations.push({
        manifest: now.manifest,
        section: now.section,
        spec: then.spec,
        newSpec: now.spec === then.spec ? null : now.spec,
        from,
        to,
        ...catalogOf(now),
      });
      byName.set(dep.name, locations);
    }
  }
  return [...byName].map(([name, locations]) => toUpdate(name, locations));
}

/** The overrides whose value moved from one reading of a project to the other. */
export function overridesMoved(before: NpmProject, after: NpmProject): OverrideMove[] {
  return after.overrides.flatMap((now) => {
    const then = before.overrides.find(
      (o) => o.file === now.file && o.field === now.field && o.key === now.key,
    );
    if (!then || then.value === now.value) return [];
    const { name, file, field, path, key } = now;
    return [{ name, file, field, path, key, from: then.value, to: now.value }];
  });
}

/** A location and the version it moved to. */
type Moved = UpdateLocation & { to: string };

function toUpdate(name: string, locations: Moved[]): Update {
  const froms = locations.map((l) => l.from).sort(compareLoose);
  const tos = locations.map((l) => l.to).sort(compareLoose);
  const from = froms[0] ?? "";
  const to = tos.at(-1) ?? "";
  return {
    name,
    from,
    to,
    type: valid(from) && valid(to) ? updateType(from, to) : "major",
    locations: locations.map(({ to: _to, ...location }) => location),
    links: {},
    newInstallScripts: [],
    passedOver: [],
  };
}

/** The installed version: the lockfile's, else the lowest the range allows. */
function versionOf(project: NpmProject, manifestDir: string, dep: DepEntry): string | undefined {
  const locked = project.lockedVersionOf?.(manifestDir, dep.name, dep.spec);
  if (locked) return locked;
  try {
    return minVersion(dep.spec)?.version;
  } catch {
    return undefined;
  }
}

function compareLoose(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}
