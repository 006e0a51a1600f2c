/**
 * One line about what went wrong, for logs, comments and the CLI. An
 * Octokit request error names the call it answered (method, path, status),
 * so "Not Found" says which of the job's many API calls it was.
 */
export function errorMessage(error: unknown): string {
  const request = requestOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!request) return message;
  return `GitHub answered ${request.status} to ${request.method} ${request.path}: ${message}`;
}

function requestOf(error: unknown): { status: number; method: string; path: string } | null {
  const candidate = error as {
    status?: unknown;
    request?: { method?: unknown; url?: unknown };
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
  return { status, method, path };
}
