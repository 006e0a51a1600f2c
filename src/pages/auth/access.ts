/**
 * Who may see and control which job. A person sees a job when their own
 * token can read its repository (GET /repos/{owner}/{repo}: 404 or 403 is
 * no), and cancels or retries it with write access (`permissions.push` in
 * that same answer). Operators (PATCHWRIGHT_ADMINS) see and control
 * everything. Answers are kept briefly per person and repository, so a
 * page of fifty jobs asks GitHub once per repository, not per job.
 */

export type RepoAccess = "none" | "read" | "write";

export interface Viewer {
  login: string;
  token: string;
}

export interface RepoRef {
  owner: string;
  name: string;
}

/** The person's token no longer works (revoked, expired): they sign in again. */
export class SignedOutError extends Error {
  override name = "SignedOutError";
}

export type RepoLookup = (token: string, repo: RepoRef) => Promise<RepoAccess>;

export interface Access {
  isOperator(viewer: Viewer): boolean;
  repo(viewer: Viewer, repo: RepoRef): Promise<RepoAccess>;
  canRead(viewer: Viewer, repo: RepoRef): Promise<boolean>;
  canControl(viewer: Viewer, repo: RepoRef): Promise<boolean>;
}

export interface AccessOptions {
  admins: ReadonlySet<string>;
  lookup: RepoLookup;
  clock?: { now(): number };
  ttlMs?: number;
}

const MAX_ENTRIES = 10_000;

export function createAccess(options: AccessOptions): Access {
  const clock = options.clock ?? Date;
  const ttlMs = options.ttlMs ?? 60_000;
  const cache = new Map<string, { until: number; answer: Promise<RepoAccess> }>();

  const admins = new Set([...options.admins].map((login) => login.toLowerCase()));
  const isOperator = (viewer: Viewer) => admins.has(viewer.login.toLowerCase());

  const repo = async (viewer: Viewer, ref: RepoRef): Promise<RepoAccess> => {
    if (isOperator(viewer)) return "write";
    const key = `${viewer.login}\n${ref.owner}/${ref.name}`.toLowerCase();
    const now = clock.now();
    const kept = cache.get(key);
    if (kept && kept.until > now) return kept.answer;
    if (cache.size >= MAX_ENTRIES) {
      for (const [k, entry] of cache) if (entry.until <= now) cache.delete(k);
      if (cache.size >= MAX_ENTRIES) cache.clear();
    }
    const answer = options.lookup(viewer.token, ref);
    cache.set(key, { until: now + ttlMs, answer });
    // A failure is not an answer to keep: the next page asks again.
    answer.catch(() => cache.delete(key));
    return answer;
  };

  return {
    isOperator,
    repo,
    canRead: async (viewer, ref) => (await repo(viewer, ref)) !== "none",
    canControl: async (viewer, ref) => (await repo(viewer, ref)) === "write",
  };
}

/** GitHub's answer for the person's own token. */
export function githubRepoLookup(apiBaseUrl: string): RepoLookup {
  return async (token, ref) => {
    const url = `${apiBaseUrl}/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.name)}`;
    const response = await fetch(url, {
      headers: { authorization: `token ${token}`, accept: "application/vnd.github+json" },
    });
    if (response.status === 401) throw new SignedOutError("GitHub refused the sign-in's token");
    if (response.status === 404 || response.status === 403) return "none";
    if (!response.ok)
      throw new Error(`GET /repos/${ref.owner}/${ref.name} answered ${response.status}`);
    const body = (await response.json()) as { permissions?: { push?: boolean; pull?: boolean } };
    if (body.permissions?.push) return "write";
    // A public repository answers anyone; its permissions say what this person has there.
    return "read";
  };
}
