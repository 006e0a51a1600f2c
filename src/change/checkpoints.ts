import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent } from "../agent/events.js";
import type { FileHistory } from "../agent/file-history.js";
import type { CoAuthor } from "../git/commit/commit-message.js";
import { type CreatedCommit, createCommits, type Identity } from "../git/commit/commits.js";
import type { GitEnv } from "../git/git-client.js";
import { makeScratchDir } from "../scratch.js";

/**
 * Checkpoints: each agent turn that changed files becomes a commit as soon
 * as the turn is over, built beside the workspace (a scratch index, HEAD
 * untouched, so the agent's own `git diff` still shows its work) and handed
 * to `save` (a push to the job's checkpoint ref). A job cut short by a
 * crash or a deploy resumes from the last one. When the agent is done, the
 * chain becomes the branch: the final commits are the checkpoints.
 */

export interface CheckpointerOptions {
  dir: string;
  env: GitEnv;
  /** The commit the chain starts on: HEAD when the agent started. */
  start: string;
  history: FileHistory;
  identity: Identity;
  coAuthor?: CoAuthor | undefined;
  requestUrl?: string | undefined;
  /** Commit messages are the model's words: redacted like everything else it says. */
  redact: (text: string) => string;
  /** Makes a new tip durable (pushes it). A failure is reported, and the next checkpoint tries again. */
  save(sha: string): Promise<void>;
  onError?: ((error: unknown) => void) | undefined;
}

export interface Checkpointer {
  /** Feed every agent event: turn texts become commit messages, a new turn closes the last one. */
  listener(event: AgentEvent): void;
  /** Commits every turn not yet committed, waits for the saves, and returns the chain. */
  finish(): Promise<CheckpointChain>;
  /**
   * For a session that failed: commits nothing more, waits for the
   * checkpoint under way and its save, and removes the scratch index.
   */
  discard(): Promise<void>;
}

export interface CheckpointChain {
  /** The last commit; `start` when no turn changed a file. */
  tip: string;
  commits: CreatedCommit[];
  /** Whether the last tip was saved (false: the save failed, or there was nothing to save). */
  saved: boolean;
  /**
   * False when a commit could not be built: the chain stops there, and the
   * caller commits the whole session the ordinary way instead.
   */
  complete: boolean;
}

export function createCheckpointer(options: CheckpointerOptions): Checkpointer {
  const texts = new Map<number, string>();
  const commits: CreatedCommit[] = [];
  let tip = options.start;
  let saved = false;
  let broken = false;
  let committedThrough = 0;
  let chain: Promise<void> = Promise.resolve();
  let scratch: Promise<string> | undefined;
  const onError = options.onError ?? (() => {});

  const indexFile = async () => {
    scratch ??= makeScratchDir("checkpoint");
    return join(await scratch, "index");
  };

  /** Commits the turns up to and including `through` that changed files, then saves the tip. */
  const commitThrough = async (through: number): Promise<void> => {
    if (broken) return;
    const turns = options.history
      .turns()
      .filter((t) => t.turn > committedThrough && t.turn <= through)
      .map((t) => ({
        turn: t.turn,
        text: options.redact(texts.get(t.turn) ?? ""),
        files: t.files,
      }));
    if (turns.length === 0) return;
    let created: { commits: CreatedCommit[] };
    try {
      created = await createCommits({
        dir: options.dir,
        turns,
        identity: options.identity,
        env: options.env,
        detached: { parent: tip, indexFile: await indexFile() },
        ...(options.coAuthor ? { coAuthor: options.coAuthor } : {}),
        ...(options.requestUrl ? { requestUrl: options.requestUrl } : {}),
      });
    } catch (error) {
      broken = true;
      onError(error);
      return;
    }
    committedThrough = Math.max(committedThrough, through);
    const last = created.commits.at(-1);
    if (!last) return;
    commits.push(...created.commits);
    tip = last.sha;
    saved = false;
    try {
      await options.save(tip);
      saved = true;
    } catch (error) {
      onError(error);
    }
  };

  const removeScratch = async () => {
    if (scratch) await rm(await scratch, { recursive: true, force: true });
  };

  const enqueue = (through: number) => {
    chain = chain.then(() => commitThrough(through)).catch(onError);
  };

  return {
    listener(event) {
      if (event.type === "text") texts.set(event.turn, event.text);
      // A turn's tools have all run once the next turn starts.
      if (event.type === "turn_start" && event.turn > 1) enqueue(event.turn - 1);
    },
    async finish() {
      enqueue(Number.POSITIVE_INFINITY);
      await chain;
      await removeScratch();
      return { tip, commits: [...commits], saved, complete: !broken };
    },
    async discard() {
      await chain;
      await removeScratch();
    },
  };
}
