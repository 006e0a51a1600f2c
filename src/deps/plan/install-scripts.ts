import { basename, dirname, join } from "node:path";
import { satisfies } from "semver";
import { parse as parseYaml } from "yaml";
import { parseJsonText } from "../../json-text.js";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { scriptedPackages } from "../managers/npm/lockfile.js";
import { isRecord } from "../record.js";
import type { Packument, RegistryClient } from "../registry/registry.js";
import type {
  ScriptApproval,
  ScriptPolicy,
  ScriptTool,
  UnapprovedScripts,
  Update,
} from "../update.js";
import { lockedPnpmPackages, pnpmScriptPolicy } from "./pnpm-builds.js";
import { splitNameAt } from "./spec.js";

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
 *
 * pnpm 10 has the same gate, its own way (pnpm-builds.ts): builds run only
 * for what `allowBuilds` or `onlyBuiltDependencies` names, pins included.
 * A policy below is either tool's.
 */

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

/** The install scripts a version runs; the registry's `hasInstallScript` (a binding.gyp) counts as `install`. */
export function installScriptsOf(packument: Packument, version: string): string[] {
  const manifest = packument.versions[version];
  const present = INSTALL_SCRIPTS.filter((name) => typeof manifest?.scripts?.[name] === "string");
  if (present.length === 0 && manifest?.hasInstallScript) present.push("install");
  return present;
}

/** A version's install scripts as the registry's abbreviated packument tells them (fetched once per name). */
export function registryInstallScripts(
  registry: Pick<RegistryClient, "packument" | "abbreviatedPackument">,
): (name: string, version: string) => Promise<string[]> {
  return async (name, version) => {
    const packument = await (registry.abbreviatedPackument ?? registry.packument).call(
      registry,
      name,
    );
    return installScriptsOf(packument, version);
  };
}

/** Install scripts `to` has and `from` did not. */
export function newInstallScripts(packument: Packument, from: string, to: string): string[] {
  const before = new Set(installScriptsOf(packument, from));
  return installScriptsOf(packument, to).filter((name) => !before.has(name));
}

/** How a pull request and the plan name each tool's settings, and the way to approve a script. */
export const SCRIPT_SETTINGS: Record<
  ScriptTool,
  { field: string; where: string; skips: string; approve: (name: string) => string }
> = {
  npm: {
    field: "allowScripts",
    where: "package.json's `allowScripts`",
    skips: "npm 12 and later skip it on install",
    approve: (name) => `npm approve-scripts ${name}`,
  },
  pnpm: {
    field: "allowBuilds",
    where: "pnpm's `allowBuilds` (or `onlyBuiltDependencies`)",
    skips:
      "pnpm 10 skips it on install, and pnpm 11 and later refuse to install until it is reviewed",
    // Interactive: it lists what the install left unbuilt, this one among them.
    approve: () => "pnpm approve-builds",
  },
};

/** package.json's `allowScripts`; undefined without the field (npm before 12 runs every script). */
export function npmScriptPolicy(allowScripts: unknown): ScriptPolicy | undefined {
  if (!isRecord(allowScripts)) return undefined;
  return {
    tool: "npm",
    approval: (name, version) => scriptApproval(allowScripts, name, version),
    pinsOf: (name) =>
      Object.entries(allowScripts)
        .filter(([key, value]) => value === true && splitKey(key)?.name === name)
        .map(([key]) => key),
  };
}

/**
 * What an `allowScripts` object says of a registry package's version, by
 * npm's rules: a key is the bare name (or `name@*`), an exact version, or
 * exact versions joined by `||`; any other range matches nothing; a denial
 * that matches wins over an approval.
 */
export function scriptApproval(policy: unknown, name: string, version: string): ScriptApproval {
  if (!isRecord(policy)) return "unreviewed";
  let allowed = false;
  for (const [key, value] of Object.entries(policy)) {
    if (!keyMatches(key, name, version)) continue;
    if (value === false) return "denied";
    if (value === true) allowed = true;
  }
  return allowed ? "allowed" : "unreviewed";
}

/**
 * The scripts of `update`'s new version that the project's policy leaves
 * unreviewed; undefined when it approves or denies them, when the version
 * has none, when there is no policy (every script runs), or when the
 * version it replaces had scripts left unreviewed too: the tool skipped
 * them before the bump, and said so on every install.
 */
export function unapprovedScripts(
  policy: ScriptPolicy | undefined,
  packument: Packument,
  update: Pick<Update, "name" | "package" | "to"> & { from?: string | undefined },
): UnapprovedScripts | undefined {
  if (!policy) return undefined;
  const scripts = installScriptsOf(packument, update.to);
  if (scripts.length === 0) return undefined;
  // An alias is matched by the package it installs, as npm and pnpm do.
  const name = update.package ?? update.name;
  if (policy.approval(name, update.to) !== "unreviewed") return undefined;
  const { from } = update;
  if (from && installScriptsOf(packument, from).length > 0) {
    if (policy.approval(name, from) === "unreviewed") return undefined;
  }
  return { tool: policy.tool, scripts, otherVersions: policy.pinsOf(name) };
}

export interface UnreviewedPackage {
  name: string;
  version: string;
  otherVersions: string[];
  tool: ScriptTool;
}

/**
 * The packages with install scripts that a bump newly locks (`after` but
 * not `before`, by name and version: transitive ones too, where a pinned
 * approval is most often left behind) and that `policy` leaves unreviewed,
 * less those whose name the base already locked unreviewed: the tool
 * skipped that script before the bump too, and said so on every install.
 * None without a policy, as for the plan's notes.
 */
export function newlyLockedUnreviewed(
  policy: ScriptPolicy | undefined,
  before: ReadonlyArray<{ name: string; version: string }>,
  after: ReadonlyArray<{ name: string; version: string }>,
): UnreviewedPackage[] {
  if (!policy) return [];
  const unreviewed = (p: { name: string; version: string }) =>
    policy.approval(p.name, p.version) === "unreviewed";
  const known = new Set(before.map((p) => `${p.name}@${p.version}`));
  const skippedBefore = new Set(before.filter(unreviewed).map((p) => p.name));
  return after
    .filter((p) => !known.has(`${p.name}@${p.version}`) && !skippedBefore.has(p.name))
    .filter(unreviewed)
    .map((p) => ({ ...p, otherVersions: policy.pinsOf(p.name), tool: policy.tool }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const NPM_LOCKFILES = new Set(["package-lock.json", "npm-shrinkwrap.json"]);

/**
 * The install-script policy of the project whose root is `root` in `dir`
 * (npm's `allowScripts`, pnpm's build settings), for its tool; undefined
 * for another tool, or when a file cannot be read.
 */
export async function readScriptPolicy(
  dir: string,
  root: string,
  tool: string,
): Promise<ScriptPolicy | undefined> {
  if (tool !== "npm" && tool !== "pnpm") return undefined;
  try {
    const manifest = parseJsonText(await readWorkspaceText(dir, join(root, "package.json")));
    if (!isRecord(manifest)) return undefined;
    if (tool === "npm") return npmScriptPolicy(manifest.allowScripts);
    const yaml = await readWorkspaceText(dir, join(root, "pnpm-workspace.yaml")).catch(() => "");
    return pnpmScriptPolicy({ manifest, workspace: parseYaml(yaml) });
  } catch {
    return undefined;
  }
}

/**
 * What a bump's lockfile in `dir` newly locks against `before` (the
 * base's) that the project's policy leaves unreviewed: what npm 12 or pnpm
 * 10 will skip once the bump is merged. Our own bump's group and another
 * bot's pull request alike. npm's lockfile marks the packages with install
 * scripts; pnpm's does not, so `installScripts` (the registry's
 * abbreviated packuments) is asked about the new versions the policy does
 * not approve, and about the base's versions of those names. None when
 * there is nothing to compare (no base lockfile, another tool's), no way
 * to ask, or a file cannot be read, which the install has already said.
 */
export async function lockedScriptsToReview(options: {
  dir: string;
  lockfilePath: string | undefined;
  before: Buffer | null | undefined;
  installScripts?: ((name: string, version: string) => Promise<string[]>) | undefined;
}): Promise<UnreviewedPackage[]> {
  const { dir, lockfilePath, before } = options;
  if (!lockfilePath || !before) return [];
  const file = basename(lockfilePath);
  const tool = NPM_LOCKFILES.has(file) ? "npm" : file === "pnpm-lock.yaml" ? "pnpm" : undefined;
  if (!tool) return [];
  const policy = await readScriptPolicy(dir, dirname(lockfilePath), tool);
  if (!policy) return [];
  try {
    const after = await readWorkspaceText(dir, lockfilePath);
    if (tool === "npm") {
      return newlyLockedUnreviewed(
        policy,
        scriptedPackages(before.toString("utf8")),
        scriptedPackages(after),
      );
    }
    const { installScripts } = options;
    if (!installScripts) return [];
    const [base, locked] = [lockedPnpmPackages(before.toString("utf8")), lockedPnpmPackages(after)];
    const known = new Set(base.map((p) => `${p.name}@${p.version}`));
    const unreviewed = (p: { name: string; version: string }) =>
      policy.approval(p.name, p.version) === "unreviewed";
    const candidates = locked.filter((p) => !known.has(`${p.name}@${p.version}`) && unreviewed(p));
    const names = new Set(candidates.map((p) => p.name));
    const scripted = async (list: Array<{ name: string; version: string }>) => {
      const answers = await Promise.all(
        list.map((p) => installScripts(p.name, p.version).catch(() => [] as string[])),
      );
      return list.filter((_, i) => (answers[i]?.length ?? 0) > 0);
    };
    return newlyLockedUnreviewed(
      policy,
      await scripted(base.filter((p) => names.has(p.name) && unreviewed(p))),
      await scripted(candidates),
    );
  } catch {
    return [];
  }
}

/** Each planned update's unapproved scripts, on a project with an install-script policy. */
export async function noteUnapprovedScripts(options: {
  updates: readonly Update[];
  policy: ScriptPolicy | undefined;
  packument: (name: string) => Promise<Packument>;
}): Promise<void> {
  const { policy } = options;
  if (!policy) return;
  for (const update of options.updates) {
    // The package manager named in packageManager is not installed as a dependency.
    if (update.locations.every((l) => l.section === "packageManager")) continue;
    const packument = await options.packument(update.package ?? update.name).catch(() => undefined);
    if (!packument) continue;
    const found = unapprovedScripts(policy, packument, update);
    if (found) update.unapprovedScripts = found;
  }
}

/** `name`, `name@spec`, `@scope/name@spec`; undefined for what is no registry name (a path, a URL). */
function splitKey(key: string): { name: string; spec: string } | undefined {
  const { name, rest } = splitNameAt(key);
  const spec = rest?.trim() ?? "";
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
