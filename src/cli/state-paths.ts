import { homedir } from "node:os";
import { join } from "node:path";

type Env = Record<string, string | undefined>;

/** Where repository mirrors are kept between runs: ~/.cache/patchwright. */
export function defaultCacheDir(env: Env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "patchwright");
}

/** ~/.local/state/patchwright/transcripts/<start time>.jsonl */
export function defaultTranscriptPath(env: Env, now: number): string {
  // Kept outside the workspace so the transcript is never mistaken for the agent's work.
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  return join(stateHome, "patchwright", "transcripts", `${stamp}.jsonl`);
}
