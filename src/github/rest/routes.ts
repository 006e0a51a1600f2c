import type { Octokit } from "@octokit/rest";

/**
 * The REST endpoints src/ calls as `octokit.rest.<scope>.<method>`, with
 * the routes @octokit/plugin-rest-endpoint-methods gives them (the test
 * compares the two). `GitHubClient` (../octokit.ts) offers these and no
 * others, so the compiler refuses a call to one missing here, and the
 * Action's client (route-client.ts) can make its methods from this table
 * instead of loading the plugin's thousand endpoints (about 80 kB and 10 ms
 * of the Action's start on Node 24). A new call: its line here.
 */
export const REST_ROUTES = {
  actions: {
    downloadJobLogsForWorkflowRun: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
    listJobsForWorkflowRun: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
    listWorkflowRunsForRepo: "GET /repos/{owner}/{repo}/actions/runs",
    reRunWorkflowFailedJobs: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
  },
  apps: {
    createInstallationAccessToken: "POST /app/installations/{installation_id}/access_tokens",
    getAuthenticated: "GET /app",
    getRepoInstallation: "GET /repos/{owner}/{repo}/installation",
    listInstallations: "GET /app/installations",
    listReposAccessibleToInstallation: "GET /installation/repositories",
  },
  checks: {
    listAnnotations: "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
    listForRef: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
  },
  git: {
    createBlob: "POST /repos/{owner}/{repo}/git/blobs",
    createCommit: "POST /repos/{owner}/{repo}/git/commits",
    createRef: "POST /repos/{owner}/{repo}/git/refs",
    createTree: "POST /repos/{owner}/{repo}/git/trees",
    getRef: "GET /repos/{owner}/{repo}/git/ref/{ref}",
    updateRef: "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
  },
  issues: {
    addLabels: "POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
    createComment: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
    get: "GET /repos/{owner}/{repo}/issues/{issue_number}",
    getComment: "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
    listComments: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
    updateComment: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
  },
  pulls: {
    create: "POST /repos/{owner}/{repo}/pulls",
    createReplyForReviewComment:
      "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
    createReview: "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    get: "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    list: "GET /repos/{owner}/{repo}/pulls",
    listCommits: "GET /repos/{owner}/{repo}/pulls/{pull_number}/commits",
    listFiles: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
    listReviewComments: "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
    listReviewCommentsForRepo: "GET /repos/{owner}/{repo}/pulls/comments",
    listReviews: "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    update: "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
    updateReviewComment: "PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}",
  },
  reactions: {
    createForIssue: "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions",
    createForIssueComment: "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
    createForPullRequestReviewComment:
      "POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions",
    listForIssueComment: "GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
  },
  repos: {
    compareCommitsWithBasehead: "GET /repos/{owner}/{repo}/compare/{basehead}",
    getCollaboratorPermissionLevel: "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
    getContent: "GET /repos/{owner}/{repo}/contents/{path}",
    listReleases: "GET /repos/{owner}/{repo}/releases",
  },
} as const;

type Routes = typeof REST_ROUTES;
type FullRest = Octokit["rest"];

/** `octokit.rest` with only the endpoints of REST_ROUTES. */
export type RestEndpoints = {
  [Scope in keyof Routes]: Pick<FullRest[Scope], keyof Routes[Scope] & keyof FullRest[Scope]>;
};
