import { createHash, getHashes } from "node:crypto";
import type { PinnedRelease } from "../managers/index.js";
import type { Packument, RegistryClient } from "../registry/registry.js";
import { tarballFile } from "../registry/tarball.js";

/**
 * corepack's hash for a release, as `packageManager` carries it
 * (`pnpm@11.29.0+sha512.<hex>`): what corepack computes after downloading
 * the release and refuses to run on a mismatch. Read in corepack 0.34's
 * installer: the whole tarball for the tools published whole (pnpm, npm,
 * yarn 1), whose sha512 is the registry's own `dist.integrity`; the file
 * `bin/yarn.js` for yarn 2+ (the file repo.yarnpkg.com serves, and the one
 * in `@yarnpkg/cli-dist`'s tarball). In the field's algorithm; undefined
 * when it is not one this Node has, or the registry gives nothing to hash.
 */
export async function corepackHash(options: {
  pinned: Pick<PinnedRelease, "hash" | "releasePackage">;
  version: string;
  packument: Packument;
  registry: Pick<RegistryClient, "tarball">;
  signal?: AbortSignal | undefined;
}): Promise<string | undefined> {
  const { pinned, version } = options;
  const algorithm = /^\+([a-z0-9-]+)\./.exec(pinned.hash ?? "")?.[1];
  if (!algorithm || !getHashes().includes(algorithm)) return undefined;
  const bin = pinned.releasePackage === "@yarnpkg/cli-dist" ? "bin/yarn.js" : undefined;
  const integrity = options.packument.versions[version]?.dist?.integrity;
  if (!bin && algorithm === "sha512" && integrity?.startsWith("sha512-"))
    return `${algorithm}.${Buffer.from(integrity.slice("sha512-".length), "base64").toString("hex")}`;
  try {
    const tarball = await options.registry.tarball(pinned.releasePackage, version, options.signal);
    const bytes = bin ? tarballFile(tarball, bin) : tarball;
    return bytes?.length
      ? `${algorithm}.${createHash(algorithm).update(bytes).digest("hex")}`
      : undefined;
  } catch {
    // No tarball, or not one: the field is listed with the command instead.
    return undefined;
  }
}
