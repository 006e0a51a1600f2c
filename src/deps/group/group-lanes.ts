import type { WarmInstall } from "../managers/warm-install.js";
import { groupBranch, type UpdateGroup } from "../plan/groups.js";
import {
  alreadyProposed,
  type BumpPulls,
  declinedPull,
  pullMovingSamePackage,
} from "../publish/bump-pulls.js";
import type { Update } from "../update.js";
import type { DepsGroupResult } from "./group-result.js";

/**
 * Which of a job's groups run, and how: side by side in lanes, each lane
 * carrying its installed tree from one group to the next. A group waits
 * when a maintainer declined the same versions, when another open pull
 * request moves one of its packages, or when `max_open_prs` bump pull
 * requests are open; a new pull request takes its place under that limit
 * when its group starts and gives it back if none is opened. A group whose
 * updates partly pass as they are runs again as its two parts.
 */

export interface LaneOptions {
  groups: readonly UpdateGroup[];
  pulls: BumpPulls;
  prefix: string;
  maxOpenPrs: number;
  /** Pull requests are opened (GitHub is there); otherwise nothing counts against the limit. */
  opensPulls: boolean;
  /** Only security fixes: a pull request already proposing the same versions is left as it is. */
  securityOnly: boolean;
  /** Lanes at most (fewer when there are fewer groups). */
  lanes: number;
  /** The first lane's installed tree. */
  warm: WarmInstall;
  /** A tree for each other lane, disposed of at the end. */
  newShelf(): WarmInstall;
  signal: AbortSignal;
  /** Runs one group with a lane's tree; `sideBySide` when other lanes run beside it. */
  run(group: UpdateGroup, shelf: WarmInstall, sideBySide: boolean): Promise<DepsGroupResult>;
}

export interface LaneOutcome {
  groups: DepsGroupResult[];
  declined: Array<{ group: UpdateGroup; pullRequest: number; url: string }>;
  waiting: Array<{ group: UpdateGroup; reason: string }>;
  deferred: UpdateGroup[];
}

export async function runGroupLanes(options: LaneOptions): Promise<LaneOutcome> {
  const { groups, pulls, prefix } = options;
  const out: LaneOutcome = { groups: [], declined: [], waiting: [], deferred: [] };
  let open = pulls.open.size;
  const outcomes: Array<DepsGroupResult[] | undefined> = [];
  const lanes = Math.max(1, Math.min(options.lanes, groups.length));
  let next = 0;

  /** Whether the group waits (said in the outcome with why) instead of running now. */
  const holdBack = (group: UpdateGroup): boolean => {
    const branch = groupBranch(prefix, group);
    const declined = declinedPull(pulls, branch, group.updates);
    if (declined) {
      out.declined.push({ group, pullRequest: declined.number, url: declined.url });
      return true;
    }
    if (options.securityOnly && alreadyProposed(pulls, branch, group.updates)) {
      out.waiting.push({ group, reason: "its open pull request already proposes these versions" });
      return true;
    }
    // A security fix does not wait behind a regular pull request for the same package.
    const clash = group.security ? undefined : pullMovingSamePackage(pulls, branch, group.updates);
    if (clash) {
      out.waiting.push({
        group,
        reason: `the open pull request on ${clash.branch} already moves ${clash.name}; one pull request per package at a time`,
      });
      return true;
    }
    return false;
  };

  const lane = async (shelf: WarmInstall, limit = Number.POSITIVE_INFINITY) => {
    let ran = 0;
    for (let index = next++; index < groups.length; index = next++) {
      options.signal.throwIfAborted();
      const group = groups[index] as UpdateGroup;
      if (holdBack(group)) continue;
      const branch = groupBranch(prefix, group);
      const takesPlace = !pulls.open.has(branch) && options.opensPulls;
      // Security fixes do not wait for max_open_prs: they skip the schedule and the cooldown too.
      if (!group.security && takesPlace && open >= options.maxOpenPrs) {
        out.deferred.push(group);
        continue;
      }
      if (takesPlace) open += 1;
      const runOne = (g: UpdateGroup) => options.run(g, shelf, lanes > 1);
      const outcome = await runOne(group);
      if (outcome.status === "split" && outcome.split) {
        const parts = splitGroup(group, outcome.split, prefix);
        const asIs = await runOne(parts.asIs);
        const fixes = await runOne(parts.fixes);
        outcomes[index] = [asIs, fixes];
        if (takesPlace && !asIs.pullRequest?.created) open -= 1;
        // The fixes part is a new pull request beside it; it counts when it opens one.
        if (fixes.pullRequest?.created && !pulls.open.has(fixes.branch)) open += 1;
      } else {
        outcomes[index] = [outcome];
        if (takesPlace && !outcome.pullRequest?.created) open -= 1;
      }
      ran += 1;
      if (ran >= limit) return;
    }
  };

  const shelves = Array.from({ length: lanes }, (_, i) =>
    i === 0 ? options.warm : options.newShelf(),
  );
  try {
    // The first group installs alone; the other lanes start from a copy of
    // its tree, which costs a copy rather than a second full install.
    const [first, ...others] = shelves as [WarmInstall, ...WarmInstall[]];
    if (others.length > 0) {
      await lane(first, 1);
      await Promise.all(others.map((shelf) => shelf.seedFrom(first).catch(() => undefined)));
    }
    await Promise.all(shelves.map((shelf) => lane(shelf)));
  } finally {
    await Promise.all(shelves.slice(1).map((shelf) => shelf.dispose()));
  }
  out.groups = outcomes.flatMap((o) => o ?? []);
  return out;
}

/** A split group's two parts: the same branch for what passes as it is, `-fixes` for the rest. */
function splitGroup(
  group: UpdateGroup,
  split: { asIs: Update[]; fixes: Update[] },
  prefix: string,
): { asIs: UpdateGroup; fixes: UpdateGroup } {
  const fixesSlug = `${group.slug}-fixes`;
  return {
    asIs: {
      ...group,
      updates: split.asIs,
      split: { role: "as-is", other: groupBranch(prefix, { slug: fixesSlug }) },
    },
    fixes: {
      ...group,
      slug: fixesSlug,
      name: `${group.name} (needs fixes)`,
      updates: split.fixes,
      split: { role: "fixes", other: groupBranch(prefix, group) },
    },
  };
}
