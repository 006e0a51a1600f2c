import type { Redactor } from "../agent/redact.js";
import type { JobRequest } from "../requests/request.js";
import { stripInvisible } from "../secrets/invisible.js";
import type { GitHubClient } from "./octokit.js";
import { sanitizeUntrusted } from "./sanitize.js";
import {
  type AgentTaskInput,
  type Attachment,
  type ChangedFile,
  DEFAULT_MAX_TASK_CHARS,
  renderAgentTask,
  type ThreadEntry,
} from "./thread-render.js";

export interface BuildAgentTaskOptions {
  /** Whether a login has write access (see createWriterCheck); others' comments are left out. */
  isWriter: (login: string) => Promise<boolean>;
  redact: Redactor;
  /** The App's own login (`patchwright[bot]`): its earlier comments are kept. */
  botLogin: string;
  /** About how long the task may be; the oldest comments go first. */
  maxChars?: number;
  /** Removed from the instruction; pass the repository's configured phrase. */
  triggerPhrase?: string;
  /** How many changed files of a pull request are listed. */
  maxFiles?: number;
  /**
   * Requests made on the thread while an earlier job ran, coalesced into
   * this one (oldest first): instructions too, from people already admitted.
   */
  earlierRequests?: readonly JobRequest[] | undefined;
  /** The job's own instruction (an upkeep job's), instead of the request's words. */
  instruction?: string | undefined;
  /** Data the job gathered for the request (see AgentTaskInput.attachments). */
  attachments?: Attachment[] | undefined;
  /** The thread, when the caller started reading it already (readThread); else it is read here. */
  thread?: Promise<ThreadLists> | undefined;
}

const DEFAULT_TRIGGER_PHRASE = "@agent";

/** The instruction, after any earlier requests it was coalesced with, in the order they came. */
function combinedInstruction(
  request: JobRequest,
  options: BuildAgentTaskOptions,
  clean: (text: string) => string,
): string {
  const phrase = options.triggerPhrase ?? DEFAULT_TRIGGER_PHRASE;
  const own = (r: JobRequest) => clean(withoutPhrase(r.instruction, phrase)).trim();
  const earlier = options.earlierRequests ?? [];
  if (earlier.length === 0) return own(request);
  return [
    "Requests made on this thread while an earlier job was running, oldest first (do them too):",
    ...earlier.map((r) => `- @${r.requester.login}: ${own(r)}`),
    "",
    `And the latest, from @${request.requester.login}:`,
    own(request),
  ].join("\n");
}
const DEFAULT_MAX_FILES = 300;

/** A thread's comments, reviews and review comments as read (readThread). */
export type ThreadLists = RawEntry[];

/** A comment, review or review comment as fetched, before filtering. */
interface RawEntry {
  id: number;
  kind: ThreadEntry["kind"];
  author: string | undefined;
  createdAt: string | undefined;
  body: string;
  path?: string;
  line?: number;
  state?: string;
}

interface Author {
  login: string;
}

function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Reads the request's thread: every comment, review and review comment, as GitHub has them now. */
export async function readThread(octokit: GitHubClient, request: JobRequest): Promise<ThreadLists> {
  const params = { owner: request.repo.owner, repo: request.repo.name, per_page: 100 };
  const number = request.target.number;
  const onPullRequest = request.target.kind === "pull_request";
  // Side by side: each list is a round trip (or more) on the way to the agent's start.
  const [issueComments, reviews, reviewComments] = await Promise.all([
    octokit.paginate(octokit.rest.issues.listComments, { ...params, issue_number: number }),
    onPullRequest
      ? octokit.paginate(octokit.rest.pulls.listReviews, { ...params, pull_number: number })
      : [],
    onPullRequest
      ? octokit.paginate(octokit.rest.pulls.listReviewComments, { ...params, pull_number: number })
      : [],
  ]);
  const entries: RawEntry[] = issueComments.map((comment) => ({
    id: comment.id,
    kind: "comment",
    author: (comment.user as Author | null)?.login,
    createdAt: comment.created_at,
    body: comment.body ?? "",
  }));
  for (const review of reviews) {
    entries.push({
      id: review.id,
      kind: "review",
      author: (review.user as Author | null)?.login,
      createdAt: review.submitted_at,
      body: review.body ?? "",
      ...optional("state", review.state),
    });
  }
  for (const comment of reviewComments) {
    entries.push({
      id: comment.id,
      kind: "review_comment",
      author: (comment.user as Author | null)?.login,
      createdAt: comment.created_at,
      body: comment.body,
      path: comment.path,
      ...optional("line", comment.line ?? comment.original_line),
    });
  }
  return entries;
}

const SOURCE_KIND: Partial<Record<JobRequest["source"]["kind"], ThreadEntry["kind"]>> = {
  issue_comment: "comment",
  review_comment: "review_comment",
  review: "review",
};

/** Only what was written before the request, never the request itself. */
function beforeTrigger(entries: RawEntry[], source: JobRequest["source"]): RawEntry[] {
  const triggerKind = SOURCE_KIND[source.kind];
  const triggerTime = source.createdAt ? Date.parse(source.createdAt) : Number.NaN;
  return entries.filter((entry) => {
    if (triggerKind === entry.kind && source.id === entry.id) return false;
    if (Number.isNaN(triggerTime)) return true;
    const time = entry.createdAt ? Date.parse(entry.createdAt) : Number.NaN;
    return time < triggerTime;
  });
}

async function fetchChangedFiles(
  octokit: GitHubClient,
  request: JobRequest,
  maxFiles: number,
): Promise<{ list: ChangedFile[]; more: boolean }> {
  let seen = 0;
  const files = await octokit.paginate(
    octokit.rest.pulls.listFiles,
    {
      owner: request.repo.owner,
      repo: request.repo.name,
      pull_number: request.target.number,
      per_page: 100,
    },
    (response, done) => {
      // One file past the cap is enough to know the list is longer.
      seen += response.data.length;
      if (seen > maxFiles) done();
      return response.data;
    },
  );
  return {
    list: files.slice(0, maxFiles).map((file) => ({
      filename: file.filename,
      status: file.status,
      additions: file.additions,
      deletions: file.deletions,
      ...optional("previousFilename", file.previous_filename),
    })),
    more: files.length > maxFiles,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `@agent please fix` -> `please fix`; `@agents` or `me@agent.dev` stay. */
function withoutPhrase(text: string, phrase: string): string {
  const trimmed = phrase.trim();
  if (trimmed === "") return text.trim();
  const end = /\w$/.test(trimmed) ? "(?![\\w-])" : "";
  const pattern = new RegExp(`(?<![\\w@./-])${escapeRegExp(trimmed)}${end}[,:;]?[ \\t]*`, "gi");
  return text.replace(pattern, "").trim();
}

/**
 * The prompt for the agent: the issue or pull request, its thread (only
 * comments written before the request by people with write access, or by
 * the bot itself), a pull request's changed files and a review comment's
 * diff hunk, all sanitized and marked as data; then the request, last, as the
 * only instruction.
 */
export async function buildAgentTask(
  octokit: GitHubClient,
  request: JobRequest,
  options: BuildAgentTaskOptions,
): Promise<string> {
  const clean = (text: string) => sanitizeUntrusted(text, options.redact);
  // Paths and diff lines are shown as written; only invisible characters and secrets go.
  const plain = (text: string) => options.redact(stripInvisible(text));
  const bot = options.botLogin.toLowerCase();

  const candidates = beforeTrigger(
    await (options.thread ?? readThread(octokit, request)),
    request.source,
  );
  const logins = [
    ...new Set(candidates.map((entry) => entry.author).filter((a) => a !== undefined)),
  ];
  const writers = new Set<string>();
  await Promise.all(
    logins.map(async (login) => {
      if (login.toLowerCase() === bot || (await options.isWriter(login))) writers.add(login);
    }),
  );

  const comments: ThreadEntry[] = [];
  let hiddenComments = 0;
  for (const entry of candidates) {
    if (entry.author === undefined || !writers.has(entry.author)) {
      hiddenComments += 1;
      continue;
    }
    const body = clean(entry.body).trim();
    // A review without words still says something through its state; other empty entries do not.
    const verdict = entry.state === "APPROVED" || entry.state === "CHANGES_REQUESTED";
    if (body === "" && !(entry.kind === "review" && verdict)) continue;
    comments.push({
      kind: entry.kind,
      author: entry.author,
      createdAt: entry.createdAt ?? "",
      body,
      fromBot: entry.author.toLowerCase() === bot,
      ...optional("path", entry.path === undefined ? undefined : plain(entry.path)),
      ...optional("line", entry.line),
      ...optional("state", entry.state),
    });
  }
  const time = (entry: ThreadEntry) => Date.parse(entry.createdAt) || 0;
  comments.sort((a, b) => time(a) - time(b));

  const input: AgentTaskInput = {
    repo: `${request.repo.owner}/${request.repo.name}`,
    target: {
      kind: request.target.kind,
      number: request.target.number,
      title: clean(request.target.title).trim(),
      body: clean(request.target.body).trim(),
    },
    comments,
    hiddenComments,
    request: {
      login: request.requester.login,
      kind: request.source.kind,
      instruction: options.instruction ?? combinedInstruction(request, options, clean),
    },
  };
  if (options.attachments) {
    // A check's or a workflow's name is the repository's (or a CI service's) words too.
    input.attachments = options.attachments.map((a) => ({
      ...a,
      name: plain(a.name),
      note: plain(a.note),
      text: plain(a.text),
    }));
  }
  if (request.target.kind === "pull_request") {
    const files = await fetchChangedFiles(octokit, request, options.maxFiles ?? DEFAULT_MAX_FILES);
    input.files = {
      list: files.list.map((file) => ({
        ...file,
        filename: plain(file.filename),
        ...optional("previousFilename", file.previousFilename && plain(file.previousFilename)),
      })),
      more: files.more,
    };
  }
  if (request.pullRequest) {
    input.pullRequest = {
      headRef: plain(request.pullRequest.headRef),
      baseRef: plain(request.pullRequest.baseRef),
      isFork: request.pullRequest.isFork,
    };
  }
  if (request.source.diffHunk) {
    input.reviewHunk = {
      path: plain(request.source.path ?? ""),
      diffHunk: plain(request.source.diffHunk),
    };
  }
  return renderAgentTask(input, options.maxChars ?? DEFAULT_MAX_TASK_CHARS);
}
