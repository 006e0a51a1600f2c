/**
 * One line about what went wrong, for logs, comments and the CLI. An
 * Octokit request error names the call it answered (method, path, status),
 * so "Not Found" says which of the job's many API calls it was.
 */
export function errorMessage(error: unknown): string {
  const request = requestOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!request) return message;
  if (!request.answered) {
    // Octokit keeps only the first cause's words: through a proxy asking for a
    // password that is "Request was cancelled.", and the reason is further down.
    const root = causeMessages(error).slice(1).at(-1);
    const detail = root && !message.includes(root) ? ` (${root})` : "";
    return `GitHub did not answer ${request.method} ${request.path}: ${message}${detail}`;
  }
  return `GitHub answered ${request.status} to ${request.method} ${request.path}: ${message}`;
}

/**
 * The messages of an error and of the causes under it, outermost first
 * (undici's own, with a proxy's status or a certificate's error, are the last).
 */
export function causeMessages(error: unknown, depth = 6): string[] {
  const messages: string[] = [];
  for (let e = error; e instanceof Error && messages.length < depth; e = e.cause)
    messages.push(e.message);
  return messages;
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
