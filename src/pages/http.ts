import type { IncomingMessage, ServerResponse } from "node:http";
import { type Html, htmlText } from "./html.js";

/**
 * Answers with the headers every page carries: no caching of what a
 * signed-in person sees, no framing, and a content security policy that
 * lets only our own scripts and styles run.
 */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};

export function sendHtml(
  res: ServerResponse,
  status: number,
  page: Html,
  headers: Record<string, string | string[]> = {},
): void {
  const body = htmlText(page);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function redirect(
  res: ServerResponse,
  location: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, "cache-control": "no-store", ...headers });
  res.end();
}

export function sendStatic(res: ServerResponse, type: string, body: Buffer): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": type,
    "content-length": body.length,
    "cache-control": "public, max-age=3600",
  });
  res.end(body);
}

const MAX_FORM_BYTES = 16 * 1024;

/** An urlencoded form body (a CSRF token and little else); too big is refused. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new Error("form too large");
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export { SECURITY_HEADERS };

/** Where the pages say what went wrong (Probot's logger); never a token, a code or a secret. */
export interface PagesLog {
  warn(fields: Record<string, unknown>, message: string): void;
}
