import { satisfies, valid, validRange } from "semver";
import { pinnedRelease } from "../managers/index.js";
import type { RegistryClient } from "../registry/registry.js";
import { releaseLinks } from "../registry/release-notes.js";
import type { Update } from "../update.js";
import { corepackHash } from "./corepack-hash.js";
import type { SkippedDependency } from "./dependency-list.js";
import { chooseTargets, ignoresPackage, rulesFor, type VersionPolicy } from "./versions.js";

/**
 * package.json's `packageManager` (`pnpm@10.12.1`), which corepack and
 * setup actions install: updated like a dependency, from the registry
 * package the tool is published as, as Renovate does. The field is the
 * whole edit: the lockfile step then runs under the new version. A field
 * with corepack's hash (`+sha512.…`) gets the new release's, computed as
 * corepack checks it (corepack-hash.ts). yarn 2+ run from the release file
 * `.yarnrc.yml`'s `yarnPath` names gets that file replaced too, as `yarn
 * set version` does (UpdateLocation.release, yarn/release-file.ts).
 */

export interface ManagerUpdates {
  updates: Update[];
  skipped: SkippedDependency[];
}

const MANIFEST = "package.json";

export async function findManagerUpdates(options: {
  dir: string;
  /** The field as written, when package.json has one. */
  pinned: string | undefined;
  /** package.json's `devEngines`, whose `packageManager` npm and pnpm check. */
  devEngines?: unknown;
  registry: RegistryClient;
  policy: VersionPolicy;
  signal?: AbortSignal | undefined;
}): Promise<ManagerUpdates> {
  const out: ManagerUpdates = { updates: [], skipped: [] };
  const pinned = pinnedRelease(options.pinned);
  if (!pinned) return out;
  const { tool, version: current, hash, manager, releasePackage: registryName } = pinned;
  const skip = (reason: string) =>
    out.skipped.push({ name: tool, manifest: MANIFEST, reason: `packageManager field: ${reason}` });
  if (!valid(current)) {
    skip(`"${options.pinned}" names no exact version to update from`);
    return out;
  }
  if (ignoresPackage(rulesFor(tool, options.policy.ignore))) {
    skip("ignored by deps.ignore");
    return out;
  }
  const packument = await options.registry
    .packument(registryName, options.signal)
    .catch((error: Error) => error);
  if (packument instanceof Error) {
    skip(packument.message);
    return out;
  }
  const choice = chooseTargets(packument, current, options.policy);
  const targets = [choice.nonMajor, choice.major].filter((c) => c !== undefined);
  if (targets.length === 0) {
    if (choice.passedOver.length > 0)
      skip(
        `${current} kept: ${choice.passedOver.map((p) => `${p.version}: ${p.reason}`).join("; ")}`,
      );
    return out;
  }
  for (const target of targets) {
    const listed = (why: string) =>
      skip(`${current} -> ${target.version} (${target.type}) listed, not proposed: ${why}`);
    const release = await manager.releaseSwap?.(options.dir, target.version);
    if (release && "held" in release) {
      listed(release.held);
      continue;
    }
    const refused = devEnginesRefusal(options.devEngines, tool, target.version);
    if (refused) {
      listed(refused);
      continue;
    }
    const newHash = hash
      ? await corepackHash({
          pinned,
          version: target.version,
          packument,
          registry: options.registry,
          signal: options.signal,
        })
      : undefined;
    if (hash && !newHash) {
      listed(
        `corepack's hash for it (the field has ${hash.slice(0, 12)}…) could not be computed from the registry: run \`corepack use ${tool}@${target.version}\``,
      );
      continue;
    }
    out.updates.push({
      name: tool,
      ...(registryName !== tool ? { package: registryName } : {}),
      from: current,
      to: target.version,
      type: target.type,
      ...(target.publishedAt ? { publishedAt: target.publishedAt } : {}),
      locations: [
        {
          manifest: MANIFEST,
          section: "packageManager",
          spec: options.pinned as string,
          newSpec: `${tool}@${target.version}${newHash ? `+${newHash}` : ""}`,
          from: current,
          ...(release ? { release: release.swap } : {}),
        },
      ],
      links: releaseLinks(packument, target.version),
      newInstallScripts: [],
      passedOver: choice.passedOver
        .filter((p) => (p.type === "major") === (target.type === "major"))
        .map((p) => `${p.version}: ${p.reason}`),
    });
  }
  return out;
}

/**
 * package.json's `devEngines.packageManager` (one entry or a list) naming
 * the same tool with a range the new release is outside: npm and pnpm 11
 * check it, and `onFail: "error"` (the default) refuses to run (npm's
 * EBADDEVENGINES), so the field alone would break every install; pnpm's
 * "download" would fetch another release than the field names. Listed with
 * what to change instead; "warn" and "ignore" let it through.
 */
function devEnginesRefusal(devEngines: unknown, tool: string, version: string): string | undefined {
  const declared = (devEngines as { packageManager?: unknown } | null | undefined)?.packageManager;
  const entries = Array.isArray(declared) ? declared : declared ? [declared] : [];
  for (const entry of entries as Array<{ name?: unknown; version?: unknown; onFail?: unknown }>) {
    if (entry?.name !== tool || typeof entry.version !== "string") continue;
    if (!validRange(entry.version) || satisfies(version, entry.version)) continue;
    const onFail = typeof entry.onFail === "string" ? entry.onFail : "error";
    if (onFail === "warn" || onFail === "ignore") continue;
    return `devEngines.packageManager asks for ${tool} "${entry.version}", which ${version} is outside (onFail: ${onFail}): change the range with the field`;
  }
  return undefined;
}
