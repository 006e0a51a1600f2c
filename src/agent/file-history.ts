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
 * change.
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
