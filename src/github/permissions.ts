import { isNotFound } from "./api-errors.js";
import type { GitHubClient, RepoRef } from "./octokit.js";

export const PERMISSION_LEVELS = ["admin", "maintain", "write", "triage", "read", "none"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

const JOB_LEVELS: ReadonlySet<PermissionLevel> = new Set(["admin", "maintain", "write"]);

function isPermissionLevel(value: unknown): value is PermissionLevel {
  return typeof value === "string" && (PERMISSION_LEVELS as readonly string[]).includes(value);
}

/**
 * The user's permission on the repository, asked at trigger time (a payload's
 * author_association is not a permission and goes stale). `role_name` tells
 * maintain and triage apart; a custom role name falls back to `permission`,
 * the base role it extends. 404 (unknown user, or a bot that is no
 * collaborator) means none; other API failures are thrown.
 */
export async function getPermission(
  octokit: GitHubClient,
  params: RepoRef & { username: string },
): Promise<PermissionLevel> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: params.owner,
      repo: params.repo,
      username: params.username,
    });
    if (isPermissionLevel(data.role_name)) return data.role_name;
    return isPermissionLevel(data.permission) ? data.permission : "none";
  } catch (error) {
    if (isNotFound(error)) return "none";
    throw error;
  }
}

/** Only people who could push the change themselves may have the bot do it. */
export function canStartJob(level: PermissionLevel): boolean {
  return JOB_LEVELS.has(level);
}

export type WriterCheck = (login: string) => Promise<boolean>;

/**
 * `(login) => has write access`, asking GitHub once per login (logins are
 * case-insensitive). A failed lookup is not remembered, so the next call asks again.
 */
export function createWriterCheck(octokit: GitHubClient, repo: RepoRef): WriterCheck {
  const answers = new Map<string, Promise<boolean>>();
  return (login) => {
    const key = login.toLowerCase();
    let answer = answers.get(key);
    if (!answer) {
      answer = getPermission(octokit, { ...repo, username: login }).then(canStartJob);
      answers.set(key, answer);
      answer.catch(() => answers.delete(key));
    }
    return answer;
  };
}
