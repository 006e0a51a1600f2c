import { fetchCheckpoint } from "../git/commit/checkpoint-ref.js";
import type { CreatedCommit } from "../git/commit/commits.js";
import { GitCommandError, runGit } from "../git/git-client.js";
import type { PushTarget } from "../git/push/push-context.js";

/**
 * Picking up a job where an earlier run of it stopped (a crash, a deploy):
 * its last checkpoint is fetched from the remote and the new branch starts
 * there, so the commits it holds are kept as they are and the agent is told
 * to carry on instead of starting over.
 */

export interface Resumed {
  from: string;
  commits: CreatedCommit[];
}

export interface ResumeTarget extends PushTarget {
  dir: string;
  ref: string;
  /**
   * Where the job's branch grew from (the base's tip). Given, a branch that
   * already holds the checkpoint (an earlier run pushed it, then died before
   * publishing) resumes too: its commits since `base` are the work.
   */
  base?: string | undefined;
}

/**
 * Moves the workspace's branch to the checkpoint, when there is one that
 * grew from where this branch starts (a pull request whose head moved since
 * is started over: its new commits come first). Undefined: nothing to resume.
 */
export async function resumeFromCheckpoint(target: ResumeTarget): Promise<Resumed | undefined> {
  const env = target.env;
  const git = (args: string[]) => runGit(target.dir, args, { env });
  const { base, ...remote } = target;
  const from = await fetchCheckpoint(remote);
  if (!from) return undefined;
  const head = (await git(["rev-parse", "HEAD"])).trim();
  const isAncestor = async (older: string, newer: string) => {
    try {
      await git(["merge-base", "--is-ancestor", older, newer]);
      return true;
    } catch (error) {
      if (error instanceof GitCommandError && error.exitCode === 1) return false;
      throw error;
    }
  };
  if (from === head || (await isAncestor(from, head))) {
    // Already on the branch: pushed by the earlier run, which died before publishing.
    if (!base) return undefined;
    const commits = await commitsBetween(target.dir, env, base, from);
    return commits.length > 0 ? { from, commits } : undefined;
  }
  if (!(await isAncestor(head, from))) return undefined;
  await git(["reset", "--quiet", "--hard", from]);
  return { from, commits: await commitsBetween(target.dir, env, head, from) };
}

async function commitsBetween(
  dir: string,
  env: PushTarget["env"],
  base: string,
  tip: string,
): Promise<CreatedCommit[]> {
  const git = (args: string[]) => runGit(dir, args, { env });
  const shas = (await git(["rev-list", "--reverse", `${base}..${tip}`]))
    .split("\n")
    .filter(Boolean);
  return Promise.all(
    shas.map(async (sha) => ({
      sha,
      subject: (await git(["log", "-1", "--format=%s", sha])).trim(),
      files: (
        await git(["diff-tree", "--no-commit-id", "--name-only", "--no-renames", "-r", "-z", sha])
      )
        .split("\0")
        .filter(Boolean),
      turns: [],
    })),
  );
}

/** What the agent is told on top of its task when it picks up an earlier run's work. */
export function resumeNote(resumed: Resumed): string {
  const list = resumed.commits.map((c) => `- ${c.sha.slice(0, 7)} ${c.subject}`).join("\n");
  return [
    "Note: an earlier run of this job was interrupted (the service restarted).",
    `The work it had done is already committed on this branch (${resumed.commits.length} commit${resumed.commits.length === 1 ? "" : "s"}):`,
    list,
    "Look at where it got to (git log, git show) and carry on from there; do not redo it.",
  ].join("\n");
}
