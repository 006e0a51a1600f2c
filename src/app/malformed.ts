import type { Probot } from "probot";

/**
 * A signed webhook whose payload our triggers cannot read. The webhook
 * server answers with the error's status and `name: message`, so this one
 * carries 400 and a generic text: the validation details are for our log
 * (one line), not for whoever sent it.
 */
export class MalformedPayloadError extends Error {
  override name = "MalformedPayload";
  readonly status = 400;
  constructor() {
    super("the webhook payload is malformed");
  }
}

/**
 * The webhook middleware logs every handler error with its stack. For a
 * malformed payload the handler has already logged one line, so that second,
 * long report is dropped; every other error is logged as before. Installed
 * before the server builds its middleware (Probot's server calls
 * getNodeMiddleware when it starts, after loading the app).
 */
export function quietMalformedPayloads(probot: Probot): void {
  const original = probot.getNodeMiddleware.bind(probot);
  probot.getNodeMiddleware = (options = {}) => {
    const log = options.log ?? probot.log;
    const filtered = Object.create(log) as typeof log;
    filtered.error = ((...args: unknown[]) => {
      if (isMalformed(args[0])) return;
      (log.error as (...a: unknown[]) => void)(...args);
    }) as typeof log.error;
    return original({ ...options, log: filtered });
  };
}

function isMalformed(value: unknown): boolean {
  const errors = (value as { errors?: unknown } | null)?.errors;
  const first = Array.isArray(errors) ? errors[0] : value;
  return first instanceof MalformedPayloadError;
}
