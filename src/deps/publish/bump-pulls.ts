import type { GitHubClient } from "../../github/octokit.js";
import type { Update } from "../update.js";

/**
 * The repository's bump pull requests, for two rules: at most
 * `max_open_prs` open at once, and a pull request a maintainer closed
 * without merging is not reopened for the same versions (a newer release
 * gets a new one). The versions a pull request proposed are kept in a
 * hidden marker at the end of its body.
 */

const MARKER = /<!-- patchwright:deps((?: [^\s>]+@[^\s>]+)*) -->/;

export function updatesMarker(updates: readonly Pick<Update, "name" | "to">[]): string {
  return `<!-- patchwright:deps${updates.map((u) => ` ${u.name}@${u.to}`).join("")} -->`;
}

export function markedUpdates(body: string | null | undefined): Set<string> | undefined {
  const match = MARKER.exec(body ?? "");
  if (!match) return undefined;
  return new Set((match[1] ?? "").split(" ").filter(Boolean));
}

export interface DeclinedPull {
  number: number;
  url: string;
  updates: Set<string>;
}

export interface BumpPulls {
  /** Head branches of open bump pull requests. */
  open: Set<string>;
  /** Per open head branch, the updates its body's marker names ("name@version"). */
  openUpdates: Map<string, Set<string>>;
  /** Per head branch, the latest bump pull request closed without merging. */
  declined: Map<string, DeclinedPull>;
}

export async function listBumpPulls(
  octokit: GitHubClient,
  repo: { owner: string; repo: string },
  prefix: string,
): Promise<BumpPulls> {
  const { data } = await octokit.rest.pulls.list({
    owner: repo.owner,
    repo: repo.repo,
    state: "all",
    sort: "updated",
    direction: "desc",
    per_page: 100,
  });
  const pulls: BumpPulls = { open: new Set(), openUpdates: new Map(), declined: new Map() };
  for (const pull of data) {
    const ref = pull.head.ref;
    if (!ref.startsWith(prefix)) continue;
    if (pull.state === "open") {
      pulls.open.add(ref);
      pulls.openUpdates.set(ref, markedUpdates(pull.body) ?? new Set());
    } else if (!pull.merged_at && !pulls.declined.has(ref)) {
      const updates = markedUpdates(pull.body);
      if (updates) pulls.declined.set(ref, { number: pull.number, url: pull.html_url, updates });
    }
  }
  return pulls;
}

/** The closed pull request that already proposed every one of these updates, if any. */
export function declinedPull(
  pulls: BumpPulls,
  branch: string,
  updates: readonly Pick<Update, "name" | "to">[],
): DeclinedPull | undefined {
  if (pulls.open.has(branch)) return undefined;
  const closed = pulls.declined.get(branch);
  if (!closed) return undefined;
  return updates.every((u) => closed.updates.has(`${u.name}@${u.to}`)) ? closed : undefined;
}

/**
 * Another open bump pull request that already moves one of these packages:
 * one open pull request per package, so the two never edit the same line.
 */
export function pullMovingSamePackage(
  pulls: BumpPulls,
  branch: string,
  updates: readonly Pick<Update, "name">[],
): { branch: string; name: string } | undefined {
  for (const [other, marked] of pulls.openUpdates) {
    if (other === branch) continue;
    const names = new Set([...marked].map((m) => m.slice(0, m.lastIndexOf("@"))));
    const clash = updates.find((u) => names.has(u.name));
    if (clash) return { branch: other, name: clash.name };
  }
  return undefined;
}

/** The open pull request on this branch proposes exactly these versions already. */
export function alreadyProposed(
  pulls: BumpPulls,
  branch: string,
  updates: readonly Pick<Update, "name" | "to">[],
): boolean {
  const marked = pulls.openUpdates.get(branch);
  if (!marked || marked.size !== updates.length) return false;
  return updates.every((u) => marked.has(`${u.name}@${u.to}`));
}
