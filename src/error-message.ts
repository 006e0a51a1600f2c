/**
 * One line about what went wrong, for logs, comments and the CLI. An
 * Octokit request error names the call it answered (method, path, status),
 * so "Not Found" says which of the job's many API calls it was.
 */
export function errorMessage(error: unknown): string {
  const request = requestOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!request) return message;
  if (!request.answered)
    return `GitHub did not answer ${request.method} ${request.path}: ${message}`;
  return `GitHub answered ${request.status} to ${request.method} ${request.path}: ${message}`;
}

function requestOf(
  error: unknown,
): { status: number; method: string; path: string; answered: boolean } | null {
  const candidate = error as {
    status?: unknown;
    request?: { method?: unknown; url?: unknown };
    response?: unknown;
  } | null;
  const status = candidate?.status;
  const method = candidate?.request?.method;
  const url = candidate?.request?.url;
  if (typeof status !== "number" || typeof method !== "string" || typeof url !== "string") {
    return null;
  }
  let path = url;
  try {
    const parsed = new URL(url);
    path = `${parsed.pathname}${parsed.search}`;
  } catch {
    // Not absolute: shown as given.
  }
  // A request that got no answer (refused, reset, a certificate not trusted):
  // Octokit gives it status 500 and no response, which is not GitHub's 500.
  return { status, method, path, answered: candidate?.response !== undefined };
}
