import type { Packument } from "./registry.js";

/**
 * Where a reviewer (and the agent) reads what changed: the repository named
 * in the packument, normalized to a browsable https URL, and its releases
 * page on the hosts that have one.
 */

export interface ReleaseLinks {
  repository?: string;
  releases?: string;
  changelog?: string;
}

export function repositoryUrl(packument: Packument, version?: string): string | undefined {
  const field =
    (version ? packument.versions[version]?.repository : undefined) ?? packument.repository;
  const raw = typeof field === "string" ? field : field?.url;
  if (!raw) return undefined;
  return normalizeRepositoryUrl(raw);
}

export function normalizeRepositoryUrl(raw: string): string | undefined {
  const text = raw.trim();
  const shorthand = /^(github|gitlab|bitbucket):([\w.-]+\/[\w.-]+)$/.exec(text);
  if (shorthand)
    return `https://${shorthand[1]}.${shorthand[1] === "bitbucket" ? "org" : "com"}/${shorthand[2]}`;
  if (/^[\w.-]+\/[\w.-]+$/.test(text)) return `https://github.com/${text}`;
  const scp = /^git@([\w.-]+):(.+?)(?:\.git)?\/?$/.exec(text);
  if (scp) return `https://${scp[1]}/${scp[2]}`;
  try {
    const url = new URL(text.replace(/^git\+/, ""));
    if (!["https:", "http:", "git:", "ssh:"].includes(url.protocol)) return undefined;
    const path = url.pathname.replace(/\.git$/, "").replace(/\/+$/, "");
    if (!path || path === "/") return undefined;
    return `https://${url.hostname}${path}`;
  } catch {
    return undefined;
  }
}

export function releaseLinks(packument: Packument, version: string): ReleaseLinks {
  const repository = repositoryUrl(packument, version);
  if (!repository) return {};
  const host = new URL(repository).hostname;
  if (host === "github.com") {
    return {
      repository,
      releases: `${repository}/releases`,
      changelog: `${repository}/blob/HEAD/CHANGELOG.md`,
    };
  }
  if (host === "gitlab.com") return { repository, releases: `${repository}/-/releases` };
  return { repository };
}
