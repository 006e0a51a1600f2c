import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runInGroup } from "../../src/spawner.js";

/**
 * Publishes a fixture package with the registry's publish request (a PUT of
 * the packument with the tarball attached), the request `npm publish`
 * makes, without starting npm: npm's own start is most of a publish (about
 * 0.9 s of CPU each on the 2-core VM, and the suite publishes over a hundred
 * fixtures). What npm changes in a manifest before publishing it is done
 * here for the fields fixtures use (the repository shorthand, and the bugs
 * and homepage npm derives from it); test/deps/registry/fixture-publish.test.ts
 * checks that the registry stores the same as after `npm publish`.
 */

export interface PublishTarget {
  /** The registry, with a trailing slash. */
  url: string;
  token: string;
}

/** A package's folder: `files`, and package.json holding `manifest`. */
export async function writePackage(
  dir: string,
  manifest: Record<string, unknown>,
  files: Record<string, string>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Writes `files` and package.json under `dir`/package and publishes them. */
export async function publishPackage(
  target: PublishTarget,
  dir: string,
  manifest: Record<string, unknown> & { name: string; version: string },
  files: Record<string, string>,
): Promise<void> {
  await writePackage(join(dir, "package"), manifest, files);
  // npm's tarball layout: everything under package/.
  // Through the spawner's helper: a test worker's fork costs it milliseconds (src/spawner.ts).
  const packed = await runInGroup("tar", ["-czf", "-", "-C", dir, "package"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  }).done;
  if (packed.code !== 0) throw new Error(`tar ${dir}: ${packed.stderr.toString("utf8")}`);
  const tarball = packed.stdout;
  const { name, version } = manifest;
  const file = `${name}-${version}.tgz`;
  const body = {
    _id: name,
    name,
    ...(typeof manifest.description === "string" ? { description: manifest.description } : {}),
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        ...asPublished(manifest),
        _id: `${name}@${version}`,
        _nodeVersion: process.versions.node,
        dist: {
          integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
          shasum: createHash("sha1").update(tarball).digest("hex"),
          tarball: new URL(`${name}/-/${file}`, target.url).href,
        },
      },
    },
    access: null,
    _attachments: {
      [file]: {
        content_type: "application/octet-stream",
        data: tarball.toString("base64"),
        length: tarball.length,
      },
    },
  };
  const response = await fetch(new URL(name.replace("/", "%2f"), target.url), {
    method: "PUT",
    headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`publishing ${name}@${version}: ${response.status} ${await response.text()}`);
}

/**
 * Deprecates one version with the requests `npm deprecate` makes: the
 * packument read for writing, the version's `deprecated` set, and the whole
 * document put back (test/deps/registry/fixture-publish.test.ts checks the
 * registry then serves what it serves after `npm deprecate`).
 */
export async function deprecateVersion(
  target: PublishTarget,
  name: string,
  version: string,
  message: string,
): Promise<void> {
  const url = new URL(name.replace("/", "%2f"), target.url);
  const headers = { authorization: `Bearer ${target.token}`, "content-type": "application/json" };
  const read = await fetch(`${url.href}?write=true`, { headers });
  if (!read.ok)
    throw new Error(`reading ${name} to deprecate it: ${read.status} ${await read.text()}`);
  const packument = (await read.json()) as { versions: Record<string, Record<string, unknown>> };
  const stored = packument.versions[version];
  if (!stored) throw new Error(`${name}@${version} is not published here`);
  stored.deprecated = message;
  const written = await fetch(url, { method: "PUT", headers, body: JSON.stringify(packument) });
  if (!written.ok)
    throw new Error(`deprecating ${name}@${version}: ${written.status} ${await written.text()}`);
}

const GITHUB_SHORTHAND = /^(?:github:)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/;
const GITHUB_URL =
  /^(?:git\+)?(?:https?|git|ssh):\/\/(?:git@)?github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?$/;

/**
 * The manifest as npm publishes it: a GitHub shorthand becomes a git URL,
 * and a GitHub repository gives bugs and homepage when they are missing.
 */
function asPublished(manifest: Record<string, unknown>): Record<string, unknown> {
  const { repository } = manifest;
  const url =
    typeof repository === "string"
      ? repository
      : (repository as { url?: unknown } | undefined)?.url;
  const github =
    typeof url === "string"
      ? (typeof repository === "string" ? GITHUB_SHORTHAND : GITHUB_URL).exec(url)
      : null;
  if (!github) return manifest;
  const web = `https://github.com/${github[1]}/${github[2]}`;
  return {
    ...manifest,
    ...(typeof repository === "string"
      ? { repository: { type: "git", url: `git+${web}.git` } }
      : {}),
    bugs: manifest.bugs ?? { url: `${web}/issues` },
    homepage: manifest.homepage ?? `${web}#readme`,
  };
}
