import type { Metafile } from "esbuild";

/** Bundles the Action into `outdir` (default: dist/); resolves to esbuild's metafile. */
export function bundleAction(outdir?: string): Promise<Metafile>;

/** The exports the bundle gives node:http and node:https (without their ESM facade). */
export const BUILTIN_EXPORTS: Record<"node:http" | "node:https", string[]>;

/** node:http's exports the bundle leaves out: reading them loads undici. */
export const UNDICI_EXPORTS: string[];
