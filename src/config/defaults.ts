/**
 * The config's defaults that are read before the config is, in a module of
 * their own: the Action's entry names them before zod and the schemas load
 * (action/early-reads.ts), and the schema (schema.ts) takes its defaults
 * from here, so the two cannot disagree.
 */

/** Where a repository keeps its config. */
export const DEFAULT_CONFIG_PATH = ".github/patchwright.yml";
/** That path as reports and answers name it (Markdown code). */
export const CONFIG_FILE = `\`${DEFAULT_CONFIG_PATH}\``;
/** The words that call the bot in a comment, a review or a new issue. */
export const DEFAULT_TRIGGER_PHRASE = "@agent";
/** The label that starts a job when added to an issue. */
export const DEFAULT_LABEL = "agent";
