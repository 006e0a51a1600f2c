import { execFile } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse as parseYaml } from "yaml";

/**
 * What each package manager's own `outdated` says about a checkout, as
 * rows of (package, current, wanted, latest), without installing anything:
 * - npm: `npm outdated --json` over a node_modules of package.json stubs
 *   written from package-lock.json (a checkout without a lockfile gets one
 *   from `npm install --package-lock-only` first: what an install takes now);
 * - pnpm: `pnpm outdated -r --format json`, with the lockfile copied to
 *   node_modules/.pnpm/lock.yaml, where pnpm reads what is installed;
 * - yarn 1: `yarn outdated --json`, which reads yarn.lock;
 * - yarn 2+ has no `outdated`: `yarn info --all --json` (yarn's own reading
 *   of yarn.lock) gives the stubs, and npm's `outdated` the rest;
 * - bun: `bun outdated`, its table read by column name.
 */

const run = promisify(execFile);

export interface ReferenceRow {
  /** The registry package the reference names (an alias's target for pnpm). */
  name: string;
  current?: string | undefined;
  wanted?: string | undefined;
  latest: string;
}

export interface Reference {
  tool: string;
  rows: ReferenceRow[];
}

const TIMEOUT = 10 * 60_000;

async function tool(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  // outdated commands exit 1 when something is outdated: their output is the answer all the same.
  try {
    const { stdout } = await run(command, args, {
      cwd,
      env,
      timeout: TIMEOUT,
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (stdout?.trim()) return stdout;
    throw new Error(
      `${command} ${args.join(" ")} failed: ${String(stderr ?? error).slice(0, 500)}`,
    );
  }
}

export async function outdatedReference(
  manager: string,
  dir: string,
  workspaces: boolean,
): Promise<Reference> {
  const env = {
    ...process.env,
    // The tool the repository pins is not what is being compared: the versions are.
    npm_config_manage_package_manager_versions: "false",
    COREPACK_ENABLE_STRICT: "0",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
  if (manager === "pnpm") {
    await mkdir(join(dir, "node_modules/.pnpm"), { recursive: true });
    await writeFile(
      join(dir, "node_modules/.pnpm/lock.yaml"),
      await readFile(join(dir, "pnpm-lock.yaml")),
    );
    const out = await tool(
      process.execPath,
      [bin("pnpm/bin/pnpm.cjs"), "outdated", "-r", "--format", "json"],
      dir,
      env,
    );
    // pnpm may print warnings (a slow request) before the JSON.
    const json = JSON.parse(out.slice(Math.max(0, out.search(/^\{/m))) || "{}") as Record<
      string,
      ReferenceRow
    >;
    return {
      tool: "pnpm outdated -r",
      rows: Object.entries(json).map(([name, row]) => ({ ...row, name })),
    };
  }
  if (manager === "yarn-classic") {
    const out = await tool(
      process.execPath,
      [bin("yarn/bin/yarn.js"), "outdated", "--json"],
      dir,
      env,
    );
    const table = out
      .split("\n")
      .filter(Boolean)
      .map(
        (line) => JSON.parse(line) as { type: string; data: { head: string[]; body: string[][] } },
      )
      .find((message) => message.type === "table");
    return {
      tool: "yarn outdated (1.x)",
      rows: tableRows(table?.data.head ?? [], table?.data.body ?? []),
    };
  }
  if (manager === "bun") {
    const out = await tool(
      bin("bun/bin/bun.exe"),
      ["outdated", ...(workspaces ? ["-r"] : [])],
      dir,
      env,
    );
    const lines = out.split("\n").filter((l) => l.startsWith("| "));
    const cells = (line: string) =>
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim());
    const [head, ...body] = lines.map(cells);
    const rows = tableRows(
      (head ?? []).map((h) => (h === "Update" ? "Wanted" : h)),
      body.map((r) => [(r[0] ?? "").replace(/ \((dev|peer|optional)\)$/, ""), ...r.slice(1)]),
    );
    return { tool: "bun outdated", rows };
  }
  if (manager === "yarn-berry") {
    const yarn = await yarnBerry(dir);
    const out = await tool(process.execPath, [yarn, "info", "--all", "--json"], dir, env);
    const installed = out
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { value: string }).value)
      // "a@npm:1.2.3", or a package yarn patches itself: "typescript@patch:…::version=5.8.2&…".
      .map((value) => /^(@?[^@]+)@(?:npm:(\d[^@]*)$|patch:.*::version=([^&]+))/.exec(value))
      .filter((m) => m !== null)
      .map((m) => ({ name: m[1] as string, version: (m[2] ?? m[3]) as string }));
    await writeStubs(dir, installed);
    return {
      tool: "yarn info + npm outdated (yarn 2+ has no outdated)",
      rows: await npmOutdated(dir, env, workspaces),
    };
  }
  const lock = await readFile(join(dir, "package-lock.json"), "utf8").catch(async () => {
    await tool(
      "npm",
      ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
      dir,
      env,
    );
    return readFile(join(dir, "package-lock.json"), "utf8");
  });
  const packages =
    (
      JSON.parse(lock) as {
        packages?: Record<
          string,
          { version?: string; link?: boolean; name?: string; resolved?: string }
        >;
      }
    ).packages ?? {};
  for (const [path, entry] of Object.entries(packages)) {
    if (!path.includes("node_modules/")) continue;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    // A workspace is a link to its folder, as npm installs it.
    if (entry.link && entry.resolved) {
      await symlink(relative(dirname(join(dir, path)), join(dir, entry.resolved)), join(dir, path));
      continue;
    }
    if (!entry.version) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf("node_modules/") + 13);
    await mkdir(join(dir, path), { recursive: true });
    await writeFile(
      join(dir, path, "package.json"),
      JSON.stringify({ name, version: entry.version }),
    );
  }
  return { tool: "npm outdated", rows: await npmOutdated(dir, env, workspaces) };
}

/** A tool installed beside patchwright (its devDependencies: pnpm, yarn 1 and 4, bun). */
function bin(path: string): string {
  return fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
}

/** The repository's own yarn release (yarnPath), else the one installed beside patchwright. */
async function yarnBerry(dir: string): Promise<string> {
  const rc = await readFile(join(dir, ".yarnrc.yml"), "utf8").catch(() => "");
  const yarnPath = (parseYaml(rc) as { yarnPath?: unknown } | null)?.yarnPath;
  if (typeof yarnPath === "string") {
    const path = join(dir, yarnPath);
    if (
      await readFile(path).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return bin("@yarnpkg/cli-dist/bin/yarn.js");
}

async function writeStubs(
  dir: string,
  installed: Array<{ name: string; version: string }>,
): Promise<void> {
  for (const { name, version } of installed) {
    const path = join(dir, "node_modules", name, "package.json");
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify({ name, version }));
  }
}

/** npm's outdated for the root, and for each workspace when there are some (`-ws` leaves the root's out). */
async function npmOutdated(
  dir: string,
  env: NodeJS.ProcessEnv,
  workspaces: boolean,
): Promise<ReferenceRow[]> {
  const runs = [
    ["outdated", "--json"],
    ...(workspaces ? [["outdated", "--json", "--workspaces"]] : []),
  ];
  const rows: ReferenceRow[] = [];
  for (const args of runs) {
    const out = await tool("npm", args, dir, env);
    const json = JSON.parse(out || "{}") as Record<string, ReferenceRow | ReferenceRow[]>;
    for (const [name, found] of Object.entries(json))
      for (const row of Array.isArray(found) ? found : [found]) rows.push({ ...row, name });
  }
  return rows;
}

/** Rows of a table whose header names Package, Current, Wanted and Latest. */
function tableRows(head: string[], body: string[][]): ReferenceRow[] {
  const at = (name: string) => head.findIndex((h) => h.toLowerCase() === name.toLowerCase());
  const [p, c, w, l] = ["Package", "Current", "Wanted", "Latest"].map(at);
  return body
    .filter((row) => row[p ?? 0])
    .map((row) => ({
      name: row[p ?? 0] as string,
      current: c !== undefined && c >= 0 ? row[c] : undefined,
      wanted: w !== undefined && w >= 0 ? row[w] : undefined,
      latest: (l !== undefined && l >= 0 ? row[l] : "") ?? "",
    }));
}
