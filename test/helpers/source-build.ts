import { mkdir, symlink } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { inject } from "vitest";

/**
 * The sources as JavaScript, one file for each (esbuild, nothing bundled),
 * for the tests that start the App, the CLI or a worker as a process: with
 * tsx each such process compiled and resolved its modules through the loader
 * again, about 3 s of CPU before it did anything, against 1.4 s on the
 * compiled files. Built once per run by the global setup (test/global-setup.ts),
 * from the current sources. The tree keeps the repository's layout (src/,
 * test/, with package.json and node_modules linked beside them), so paths a
 * module finds from its own URL (package.json, the modules it resolves) are
 * the same as from the sources.
 */

const ROOT = resolve(import.meta.dirname, "../..");

export async function buildSources(outdir: string): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: ["src/**/*.ts", "test/**/*.ts"],
    outbase: ROOT,
    outdir,
    bundle: false,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  await mkdir(outdir, { recursive: true });
  await Promise.all(
    ["package.json", "node_modules"].map((name) => symlink(join(ROOT, name), join(outdir, name))),
  );
}

/** The compiled file for a source file of the repository (an absolute path or one from its root). */
export function compiled(source: string): string {
  const dir = inject("sourceBuildDir");
  return join(dir, relative(ROOT, resolve(ROOT, source)).replace(/\.ts$/, ".js"));
}
