import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ChangeRecord } from "./tools/define-tool.js";

/** One recorded change, tagged with who made it and when. */
export interface FileChange extends ChangeRecord {
  turn: number;
  toolCallId: string;
  tool: string;
}

/** The combined effect on one file of a span of changes (a turn, or the whole run). */
export interface NetChange {
  path: string;
  before: Buffer | null;
  after: Buffer | null;
}

export interface TurnChanges {
  turn: number;
  /** Tool call ids in the order they changed files. */
  toolCallIds: string[];
  files: NetChange[];
}

/**
 * Before/after snapshots of every change the agent made, grouped by turn.
 * The git layer turns each turn into a commit; the job reports the net
 * change; a failed turn can be undone.
 */
export class FileHistory {
  readonly #changes: FileChange[] = [];

  record(change: FileChange): void {
    if (sameContent(change.before, change.after)) return;
    this.#changes.push(change);
  }

  all(): readonly FileChange[] {
    return this.#changes;
  }

  /** Turns that changed at least one file, in order, each with its net file changes. */
  turns(): TurnChanges[] {
    const byTurn = new Map<number, FileChange[]>();
    for (const change of this.#changes) {
      const list = byTurn.get(change.turn) ?? [];
      list.push(change);
      byTurn.set(change.turn, list);
    }
    const result: TurnChanges[] = [];
    for (const [turn, changes] of [...byTurn].sort((a, b) => a[0] - b[0])) {
      const files = mergeChanges(changes);
      if (files.length === 0) continue;
      result.push({ turn, toolCallIds: [...new Set(changes.map((c) => c.toolCallId))], files });
    }
    return result;
  }

  /** The net change per file over the whole run (files changed and changed back are left out). */
  netChanges(): NetChange[] {
    return mergeChanges(this.#changes);
  }

  /**
   * Puts the files a turn changed back as they were before it and forgets the
   * turn. Refuses when a later turn changed the same files, since restoring
   * would silently drop that later work.
   */
  async undoTurn(turn: number, root: string): Promise<NetChange[]> {
    const own = this.#changes.filter((c) => c.turn === turn);
    const paths = new Set(own.map((c) => c.path));
    const later = this.#changes.filter((c) => c.turn > turn && paths.has(c.path));
    if (later.length > 0) {
      const names = [...new Set(later.map((c) => c.path))].join(", ");
      throw new Error(`cannot undo turn ${turn}: later turns changed ${names}`);
    }
    const merged = mergeChanges(own);
    for (const file of merged) {
      const absolute = join(root, file.path);
      if (file.before === null) {
        await rm(absolute, { force: true });
      } else {
        await mkdir(dirname(absolute), { recursive: true });
        await writeFile(absolute, file.before);
      }
    }
    for (let i = this.#changes.length - 1; i >= 0; i--) {
      if (this.#changes[i]?.turn === turn) this.#changes.splice(i, 1);
    }
    return merged;
  }
}

function mergeChanges(changes: readonly ChangeRecord[]): NetChange[] {
  const byPath = new Map<string, NetChange>();
  for (const change of changes) {
    const seen = byPath.get(change.path);
    if (seen) seen.after = change.after;
    else byPath.set(change.path, { path: change.path, before: change.before, after: change.after });
  }
  return [...byPath.values()].filter((c) => !sameContent(c.before, c.after));
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}
