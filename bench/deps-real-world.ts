import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import registryFetch from "npm-registry-fetch";
import PQueue from "p-queue";
import { gt, prerelease, valid } from "semver";
import type { DepsPlan } from "../src/deps/plan/plan.js";
import { checkout } from "./deps-checkout.js";
import { outdatedReference } from "./deps-references.js";

/**
 * The dependency planner on real repositories, against the live registry
 * (opt-in: it needs the network, so it is no test and not in `npm run bench`):
 *
 *   node --import tsx bench/deps-real-world.ts [--json] SOURCE...
 *
 * SOURCE is a local checkout, a git directory (a bare mirror) or a clone
 * URL; only the files a plan reads are checked out (manifests, lockfiles,
 * rc and version files, workflows). For each, `patchwright deps --dry-run
 * --json` runs as a process (its wall time and peak memory are reported),
 * then the package manager's own `outdated` (deps-references.ts), and the
 * two are compared package by package: everything the reference calls
 * outdated must be proposed at its latest, or proposed lower or left out
 * with a reason the plan prints. Anything else is an unexplained
 * difference; a proposal past the reference's latest is a wrong one. Exits
 * 1 when there is either.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PEAK_RSS = fileURLToPath(new URL("./peak-rss.mjs", import.meta.url));

interface Comparison {
  source: string;
  manager: string;
  manifests: number;
  seconds: number;
  peakRssMb: number;
  updates: number;
  pullRequests: number;
  warnings: string[];
  tool: string;
  outdated: number;
  atLatest: number;
  lower: Array<{ name: string; to: string; latest: string; reason: string }>;
  leftOut: Array<{ name: string; latest: string; reason: string }>;
  unexplained: Array<{ name: string; current?: string | undefined; latest: string }>;
  pastLatest: Array<{ name: string; to: string; latest: string }>;
  /** Proposed, but the reference lists no such package (packageManager, a prerelease channel…). */
  extra: string[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const sources = args.filter((a) => !a.startsWith("--"));
  if (sources.length === 0) {
    console.error("usage: node --import tsx bench/deps-real-world.ts [--json] SOURCE...");
    process.exit(2);
  }
  const results: Comparison[] = [];
  for (const source of sources) {
    const dir = await mkdtemp(join(tmpdir(), "pw-real-world-"));
    try {
      results.push(await compare(source, dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  console.log(json ? JSON.stringify(results, null, 2) : results.map(report).join("\n\n"));
  const bad = results.some((r) => r.unexplained.length > 0 || r.pastLatest.length > 0);
  process.exit(bad ? 1 : 0);
}

async function compare(source: string, dir: string): Promise<Comparison> {
  await checkout(source, dir);
  const started = performance.now();
  const planned = await planOf(dir);
  const seconds = (performance.now() - started) / 1000;
  const { plan } = planned;
  const reference = await outdatedReference(plan.manager, dir, plan.manifests.length > 1);
  const aliases = await aliasTargets(dir, plan.manifests);
  const updates = plan.groups.flatMap((g) => g.updates);
  const result: Comparison = {
    source,
    manager: plan.manager,
    manifests: plan.manifests.length,
    seconds: Math.round(seconds * 10) / 10,
    peakRssMb: Math.round(planned.peakRssKb / 1024),
    updates: updates.length,
    pullRequests: plan.groups.length,
    warnings: plan.warnings.map((w) => `${w.check}: ${w.error}`),
    tool: reference.tool,
    outdated: 0,
    atLatest: 0,
    lower: [],
    leftOut: [],
    unexplained: [],
    pastLatest: [],
    extra: [],
  };
  // npm picks its "latest" for the Node running it; the registry's dist-tag is what the plan caps at.
  const tags = await latestTags(
    plan.registry,
    reference.rows.map((r) => r.name),
  );
  const seen = new Set<string>();
  // npm lists a package once per workspace that has it (and the root's again under -ws).
  const rows = [...new Map(reference.rows.map((r) => [`${r.name}\0${r.current}`, r])).values()];
  for (const reported of rows) {
    const row = { ...reported, latest: tags.get(reported.name) ?? reported.latest };
    const current = valid(row.current ?? "") ? (row.current as string) : undefined;
    if (!row.latest || row.current === row.latest) continue;
    if (current && valid(row.latest) && !gt(row.latest, current)) continue;
    result.outdated += 1;
    // The reference names a package; the plan names the dependency (an alias, its own name).
    const names = new Set([row.name, ...(aliases.get(row.name) ?? [])]);
    for (const name of names) seen.add(name);
    const proposed = updates.filter((u) => names.has(u.name) || names.has(u.package ?? ""));
    for (const u of proposed) {
      if (valid(u.to) && valid(row.latest) && gt(u.to, row.latest) && !prerelease(u.from))
        result.pastLatest.push({ name: u.name, to: u.to, latest: row.latest });
    }
    if (proposed.some((u) => u.to === row.latest)) {
      result.atLatest += 1;
      continue;
    }
    const reasons = [
      ...plan.skipped.filter((s) => names.has(s.name)).map((s) => s.reason),
      ...proposed.flatMap((u) => u.passedOver.map((p) => `passed over ${p}`)),
    ];
    // The reason that names the reference's latest says why that one is not proposed.
    const [reason] = [...reasons].sort(
      (a, b) => Number(b.includes(row.latest)) - Number(a.includes(row.latest)),
    );
    const latest = row.latest;
    if (reason === undefined)
      result.unexplained.push({ name: row.name, current: row.current, latest });
    else if (proposed.length > 0)
      result.lower.push({
        name: row.name,
        to: proposed.map((u) => u.to).join(", "),
        latest,
        reason,
      });
    else result.leftOut.push({ name: row.name, latest, reason });
  }
  result.extra = updates
    .filter((u) => !seen.has(u.name) && !seen.has(u.package ?? ""))
    .map((u) => {
      const where = u.locations.some((l) => l.section === "packageManager")
        ? ", packageManager"
        : "";
      return `${u.name} ${u.from} -> ${u.to}${where}`;
    });
  return result;
}

/** `patchwright deps --dry-run --json` as a process, with its peak memory. */
async function planOf(dir: string): Promise<{ plan: DepsPlan; peakRssKb: number }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      PEAK_RSS,
      join(ROOT, "src/cli.ts"),
      "deps",
      "--cwd",
      dir,
      "--dry-run",
      "--json",
    ],
    { cwd: ROOT, env: process.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  if (code !== 0) throw new Error(`patchwright deps exited ${code}: ${err.slice(-2000)}`);
  const peak = Number(/PEAK_RSS_KB (\d+)/.exec(err)?.[1] ?? Number.NaN);
  return { plan: JSON.parse(out) as DepsPlan, peakRssKb: peak };
}

/** Each package's `latest` dist-tag, from the registry the plan used (the abbreviated document). */
async function latestTags(registry: string, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const queue = new PQueue({ concurrency: 8 });
  await queue.addAll(
    [...new Set(names)].map((name) => async () => {
      const doc = (await registryFetch
        .json(`/${name.replace("/", "%2f")}`, {
          registry,
          headers: { accept: "application/vnd.npm.install-v1+json" },
        })
        .catch(() => undefined)) as { "dist-tags"?: { latest?: string } } | undefined;
      const latest = doc?.["dist-tags"]?.latest;
      if (latest) out.set(name, latest);
    }),
  );
  return out;
}

/** Alias dependency names by the package they install (`"lib3": "npm:lib@…"`: lib -> lib3). */
async function aliasTargets(dir: string, manifests: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const manifest of manifests) {
    const json = JSON.parse(await readFile(join(dir, manifest), "utf8")) as Record<string, unknown>;
    for (const section of [
      "dependencies",
      "devDependencies",
      "optionalDependencies",
      "peerDependencies",
    ]) {
      for (const [name, spec] of Object.entries((json[section] ?? {}) as Record<string, unknown>)) {
        const target = typeof spec === "string" ? /^npm:(@?[^@]+)/.exec(spec)?.[1] : undefined;
        if (target) out.set(target, [...new Set([...(out.get(target) ?? []), name])]);
      }
    }
  }
  return out;
}

/** The kind of reason, for the summary: the reasons themselves are listed too. */
function kind(reason: string): string {
  const kinds: Array<[RegExp, string]> = [
    [/waits until/, "one pull request per package (waits for the earlier one)"],
    [/needs Node/, "engines.node"],
    [/peer range|needs peer/, "peer range"],
    [/cooldown/, "cooldown"],
    [/refuses it before/, "package manager's release age"],
    [/not enabled/, "deps.update_types"],
    [/ignored by deps\.ignore/, "deps.ignore"],
    [/deprecated/, "deprecated"],
    [/catalog/, "pnpm catalog"],
    [/packageManager field/, "packageManager field"],
    [/inside/, "already in range"],
    [/local package|git or URL|dist-tag|alias without/, "not a registry range"],
  ];
  return kinds.find(([pattern]) => pattern.test(reason))?.[1] ?? "other";
}

function report(r: Comparison): string {
  const counts = new Map<string, number>();
  for (const { reason } of [...r.lower, ...r.leftOut])
    counts.set(kind(reason), (counts.get(kind(reason)) ?? 0) + 1);
  const byKind = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const lines = [
    `## ${basename(r.source.replace(/\/repo$|\.git$/, ""))} (${r.manager}, ${r.manifests} package.json file${r.manifests === 1 ? "" : "s"})`,
    `plan: ${r.seconds} s, peak RSS ${r.peakRssMb} MB; ${r.updates} updates in ${r.pullRequests} pull request${r.pullRequests === 1 ? "" : "s"}`,
    ...r.warnings.map((w) => `plan warning: ${w}`),
    `reference: ${r.tool}: ${r.outdated} outdated`,
    `  proposed at the reference's latest: ${r.atLatest}`,
    `  proposed lower, with a reason: ${r.lower.length}`,
    `  left out, with a reason: ${r.leftOut.length}`,
    `  reasons: ${byKind || "none"}`,
    `  unexplained differences: ${r.unexplained.length}`,
    `  proposals past the reference's latest: ${r.pastLatest.length}`,
    `  proposed, not in the reference: ${r.extra.length}${r.extra.length > 0 ? ` (${r.extra.join("; ")})` : ""}`,
  ];
  for (const u of r.unexplained)
    lines.push(`  UNEXPLAINED ${u.name} ${u.current ?? "?"} -> ${u.latest}`);
  for (const p of r.pastLatest)
    lines.push(`  PAST LATEST ${p.name} -> ${p.to} (latest ${p.latest})`);
  for (const l of r.lower)
    lines.push(`  lower: ${l.name} -> ${l.to}, latest ${l.latest}: ${l.reason}`);
  for (const l of r.leftOut) lines.push(`  left out: ${l.name}, latest ${l.latest}: ${l.reason}`);
  return lines.join("\n");
}

await main();
