import type { Metafile } from "esbuild";

/** Bundles the Action into `outdir` (default: dist/); resolves to esbuild's metafile. */
export function bundleAction(outdir?: string): Promise<Metafile>;
