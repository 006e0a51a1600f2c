import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Real text that holds no secret but is full of what looks like one:
 * lockfiles with integrity hashes, minified and bundled JavaScript,
 * source maps, base64 fixtures, git object ids, UUIDs. The false-positive
 * test and `npm run bench -- secrets` run the detector over it; a find here
 * is a false positive (each rule's finds are listed by the bench).
 */

export type CorpusKind = "lockfile" | "minified" | "source map" | "base64" | "git ids" | "uuids";

export interface CorpusFile {
  name: string;
  kind: CorpusKind;
  text: string;
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface LockEntry {
  name: string;
  version: string;
  resolved?: string;
  integrity?: string;
}

function lockEntries(lock: string): LockEntry[] {
  const packages = (JSON.parse(lock) as { packages: Record<string, Partial<LockEntry>> }).packages;
  return Object.entries(packages)
    .filter(([path, entry]) => path !== "" && entry.version && entry.integrity)
    .map(([path, entry]) => ({
      name: path.replace(/^.*node_modules\//, ""),
      version: entry.version as string,
      resolved: `https://registry.npmjs.org/${path.replace(/^.*node_modules\//, "")}/-/x-${entry.version}.tgz`,
      integrity: entry.integrity as string,
    }));
}

/** The same packages in yarn's and pnpm's lockfile formats (their hashes are the real ones). */
function otherLockfiles(entries: LockEntry[]): CorpusFile[] {
  const yarn = entries
    .map(
      (e) =>
        `"${e.name}@^${e.version}":\n  version "${e.version}"\n  resolved "${e.resolved}#${createHash("sha1").update(e.name).digest("hex")}"\n  integrity ${e.integrity}\n`,
    )
    .join("\n");
  const pnpm = entries
    .map(
      (e) =>
        `  /${e.name}@${e.version}:\n    resolution: {integrity: ${e.integrity}}\n    engines: {node: '>=14'}\n    dev: false\n`,
    )
    .join("\n");
  return [
    { name: "yarn.lock", kind: "lockfile", text: `# yarn lockfile v1\n\n${yarn}` },
    {
      name: "pnpm-lock.yaml",
      kind: "lockfile",
      text: `lockfileVersion: '6.0'\n\npackages:\n\n${pnpm}`,
    },
  ];
}

function walk(dir: string, keep: (path: string) => boolean, out: string[], limit: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= limit) return;
    // A secret scanner's own examples are secrets by shape, on purpose.
    if (name === "@secretlint") continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) walk(path, keep, out, limit);
    else if (stat?.isFile() && keep(path)) out.push(path);
  }
}

function filesOf(paths: string[], kind: CorpusKind): CorpusFile[] {
  return paths.map((path) => ({
    name: relative(ROOT, path),
    kind,
    text: readFileSync(path, "latin1"),
  }));
}

/**
 * `length` bytes that look random but are the same on every run (SHA-256 of
 * the label and a counter). Random ones made the false-positive test flaky:
 * about one run in a thousand (by the github-token rule's odds), a base64url
 * fixture held `gh[opusr]_` after a `-` and twenty letters or digits, which is
 * a GitHub token's shape and rightly found (seen once in a suite run here).
 */
function seededBytes(label: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let block = 0; block * 32 < length; block++) {
    blocks.push(createHash("sha256").update(`${label} ${block}`).digest());
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** Fixtures as tests write them: base64 of random-looking bytes, data URIs, a wasm module inlined. */
function base64Fixtures(count: number): CorpusFile[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = seededBytes(`fixture ${i}`, 16 + ((i * 37) % 700));
    const b64 = bytes.toString("base64");
    lines.push(
      i % 3 === 0
        ? `export const fixture${i} = "${b64}";`
        : i % 3 === 1
          ? `  "payload_${i}": "${bytes.toString("base64url")}",`
          : `background: url("data:image/png;base64,${b64}");`,
    );
  }
  return [{ name: "base64 fixtures", kind: "base64", text: lines.join("\n") }];
}

function gitIds(): CorpusFile {
  const log = execFileSync("git", ["log", "--all", "--format=commit %H%ntree %T%nparent %P%n"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const random = Array.from({ length: 5000 }, (_, i) =>
    seededBytes(`object ${i}`, 20).toString("hex"),
  ).join("\n");
  return { name: "git log + object ids", kind: "git ids", text: `${log}\n${random}` };
}

/** A version-4 UUID made from seededBytes. */
function seededUuid(label: string): string {
  const hex = seededBytes(label, 16).toString("hex");
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function uuids(count: number): CorpusFile {
  const uuid = (i: number, part: string) => seededUuid(`uuid ${i} ${part}`);
  const lines = Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? uuid(i, "a") : `id: ${uuid(i, "a").toUpperCase()} request_id=${uuid(i, "b")}`,
  );
  return { name: "uuids", kind: "uuids", text: lines.join("\n") };
}

/**
 * `small`: what the test reads (the repository's lockfile in three formats,
 * a few minified files, generated ids and fixtures); otherwise every
 * minified file and source map in node_modules too.
 */
export function secretCorpus(size: "small" | "large"): CorpusFile[] {
  const lock = readFileSync(join(ROOT, "package-lock.json"), "utf8");
  const modules = join(ROOT, "node_modules");
  const minified =
    size === "small"
      ? [
          "lodash/lodash.min.js",
          "handlebars/dist/handlebars.min.js",
          "validator/validator.min.js",
          "tldts/dist/index.cjs.min.js",
        ]
          .map((path) => join(modules, path))
          .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
      : (() => {
          const out: string[] = [];
          walk(modules, (path) => /\.min\.js$|[\\/]dist[\\/][^\\/]+\.js$/.test(path), out, 20000);
          return out;
        })();
  const maps: string[] = [];
  if (size === "large") walk(modules, (path) => path.endsWith(".js.map"), maps, 20000);
  return [
    { name: "package-lock.json", kind: "lockfile", text: lock },
    ...otherLockfiles(lockEntries(lock)),
    ...filesOf(minified, "minified"),
    ...filesOf(maps, "source map"),
    ...base64Fixtures(size === "small" ? 2000 : 20000),
    gitIds(),
    uuids(size === "small" ? 5000 : 50000),
  ];
}
