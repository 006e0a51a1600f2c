import type { Metafile } from "esbuild";

/** Bundles the Action into `outdir` (default: dist/); resolves to esbuild's metafile. */
export function bundleAction(outdir?: string): Promise<Metafile>;

/** The exports the bundle gives each Node built-in its ES modules import (without an ESM facade). */
export const BUILTIN_EXPORTS: Record<string, string[]>;

/** Exports the bundle leaves out, by built-in: reading them loads code a run does not need. */
export const LAZY_EXPORTS: Record<string, string[]>;

/**
 * Throws when code that runs before main.ts loads imports a module whose
 * stand-in loads main.ts first; `inputs` is esbuild's metafile's.
 */
export function checkLateImports(
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>,
): void;

/**
 * A module's format (ESM or not) and the names its own statements export, as
 * esbuild reads them: the stand-ins of `lateImportsAfterMain` pass `default` on.
 */
export function moduleShape(
  source: string,
  loader: "ts" | "js",
): Promise<{ esm: boolean; exports: string[] }>;

/**
 * The first character past ASCII in each file's text, as "file: ...text...":
 * the bundle is kept to ASCII (bundleAction refuses to build otherwise).
 */
export function nonAsciiIn(files: Array<[string, string]>): string[];
