import { basename, dirname, join } from "node:path";
import { satisfies } from "semver";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { scriptedPackages } from "../managers/npm/lockfile.js";
import type { Packument } from "../registry/registry.js";
import type { UnapprovedScripts, Update } from "../update.js";

/**
 * A dependency's install scripts, as a bump changes them: the scripts a
 * new version adds, and the ones the project's install-script policy does
 * not approve for it.
 *
 * npm 11.16 added `allowScripts` to package.json: which dependencies may
 * run install scripts, by name (`"esbuild": true`) or pinned to the
 * versions someone reviewed (`"esbuild@0.25.0": true`, what
 * `npm approve-scripts` writes). npm 12 skips every script the field does
 * not approve, silently until the install's closing list. A bump past a
 * pinned version is such a script: the project's own CI installs the new
 * version without it. Approving it for the maintainer would defeat the
 * pin, so the plan and the pull request say so instead.
 */

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

/** The install scripts a version runs; the registry's `hasInstallScript` (a binding.gyp) counts as `install`. */
export function installScriptsOf(packument: Packument, version: string): string[] {
  const manifest = packument.versions[version];
  const present = INSTALL_SCRIPTS.filter((name) => typeof manifest?.scripts?.[name] === "string");
  if (present.length === 0 && manifest?.hasInstallScript) present.push("install");
  return present;
}

/** Install scripts `to` has and `from` did not. */
export function newInstallScripts(packument: Packument, from: string, to: string): string[] {
  const before = new Set(installScriptsOf(packument, from));
  return installScriptsOf(packument, to).filter((name) => !before.has(name));
}

export type ScriptApproval = "allowed" | "denied" | "unreviewed";

/**
 * What an `allowScripts` object says of a registry package's version, by
 * npm's rules: a key is the bare name (or `name@*`), an exact version, or
 * exact versions joined by `||`; any other range matches nothing; a denial
 * that matches wins over an approval.
 */
export function scriptApproval(policy: unknown, name: string, version: string): ScriptApproval {
  if (!isPolicy(policy)) return "unreviewed";
  let allowed = false;
  for (const [key, value] of Object.entries(policy)) {
    if (!keyMatches(key, name, version)) continue;
    if (value === false) return "denied";
    if (value === true) allowed = true;
  }
  return allowed ? "allowed" : "unreviewed";
}

/**
 * The scripts of `update`'s new version that the project's `allowScripts`
 * leaves unreviewed; undefined when it approves or denies them, when the
 * version has none, or when the project has no such field (it has not
 * opted into the policy, and npm before 12 runs every script).
 */
export function unapprovedScripts(
  policy: unknown,
  packument: Packument,
  update: Pick<Update, "name" | "package" | "to">,
): UnapprovedScripts | undefined {
  if (!isPolicy(policy)) return undefined;
  const scripts = installScriptsOf(packument, update.to);
  if (scripts.length === 0) return undefined;
  // An alias is matched by the package it installs, as npm does.
  const unreviewed = unreviewedBy(policy, update.package ?? update.name, update.to);
  return unreviewed && { scripts, ...unreviewed };
}

/**
 * Undefined when the policy approves or denies `name@version`; else its
 * approvals of other versions of the package (the pin a bump leaves behind).
 */
function unreviewedBy(
  policy: Record<string, unknown>,
  name: string,
  version: string,
): { otherVersions: string[] } | undefined {
  if (scriptApproval(policy, name, version) !== "unreviewed") return undefined;
  const otherVersions = Object.entries(policy)
    .filter(([key, value]) => value === true && splitKey(key)?.name === name)
    .map(([key]) => key);
  return { otherVersions };
}

export interface UnreviewedPackage {
  name: string;
  version: string;
  otherVersions: string[];
}

/**
 * The packages with install scripts that a bump newly locks (`after` but
 * not `before`, by name and version: transitive ones too, where a pinned
 * approval is most often left behind) and that `policy` leaves unreviewed.
 * None without the field, as for the plan's notes.
 */
export function newlyLockedUnreviewed(
  policy: unknown,
  before: ReadonlyArray<{ name: string; version: string }>,
  after: ReadonlyArray<{ name: string; version: string }>,
): UnreviewedPackage[] {
  if (!isPolicy(policy)) return [];
  const known = new Set(before.map((p) => `${p.name}@${p.version}`));
  return after
    .filter((p) => !known.has(`${p.name}@${p.version}`))
    .flatMap((p) => {
      const unreviewed = unreviewedBy(policy, p.name, p.version);
      return unreviewed ? [{ ...p, ...unreviewed }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const NPM_LOCKFILES = new Set(["package-lock.json", "npm-shrinkwrap.json"]);

/**
 * What a bump's npm lockfile in `dir` newly locks against `before` (the
 * base's) and package.json's `allowScripts` leaves unreviewed: what npm 12
 * will skip once the bump is merged. Our own bump's group and another
 * bot's pull request alike. None when there is nothing to compare (no base
 * lockfile, another tool's) or a file cannot be read, which the install has
 * already said.
 */
export async function lockedScriptsToReview(options: {
  dir: string;
  lockfilePath: string | undefined;
  before: Buffer | null | undefined;
}): Promise<UnreviewedPackage[]> {
  const { dir, lockfilePath, before } = options;
  if (!lockfilePath || !before || !NPM_LOCKFILES.has(basename(lockfilePath))) return [];
  try {
    const manifest = JSON.parse(
      await readWorkspaceText(dir, join(dirname(lockfilePath), "package.json")),
    ) as { allowScripts?: unknown } | null;
    return newlyLockedUnreviewed(
      manifest?.allowScripts,
      scriptedPackages(before.toString("utf8")),
      scriptedPackages(await readWorkspaceText(dir, lockfilePath)),
    );
  } catch {
    return [];
  }
}

/** Each planned update's unapproved scripts, on an npm project whose package.json has `allowScripts`. */
export async function noteUnapprovedScripts(options: {
  updates: readonly Update[];
  /** The root package.json. */
  manifest: Record<string, unknown>;
  packument: (name: string) => Promise<Packument>;
}): Promise<void> {
  const policy = options.manifest.allowScripts;
  if (!isPolicy(policy)) return;
  for (const update of options.updates) {
    // The package manager named in packageManager is not installed as a dependency.
    if (update.locations.every((l) => l.section === "packageManager")) continue;
    const packument = await options.packument(update.package ?? update.name).catch(() => undefined);
    if (!packument) continue;
    const found = unapprovedScripts(policy, packument, update);
    if (found) update.unapprovedScripts = found;
  }
}

function isPolicy(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `name`, `name@spec`, `@scope/name@spec`; undefined for what is no registry name (a path, a URL). */
function splitKey(key: string): { name: string; spec: string } | undefined {
  const at = key.indexOf("@", key.startsWith("@") ? 1 : 0);
  const name = at < 0 ? key : key.slice(0, at);
  const spec = at < 0 ? "" : key.slice(at + 1).trim();
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/i.test(name)) return undefined;
  return { name, spec };
}

const EXACT = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function keyMatches(key: string, name: string, version: string): boolean {
  const parsed = splitKey(key);
  if (!parsed || parsed.name !== name) return false;
  if (parsed.spec === "" || parsed.spec === "*") return true;
  // Only exact versions: npm refuses ranges, which would approve versions nobody reviewed.
  const versions = parsed.spec.split("||").map((v) => v.trim());
  if (!versions.every((v) => EXACT.test(v))) return false;
  return satisfies(version, parsed.spec, { loose: true });
}
