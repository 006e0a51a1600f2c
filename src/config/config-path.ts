/**
 * Where a repository keeps its config, in a module of its own: the
 * Action's entry names it before zod and the schemas load
 * (action/early-reads.ts).
 */
export const DEFAULT_CONFIG_PATH = ".github/patchwright.yml";
