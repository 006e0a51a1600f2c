import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRedactor } from "../../src/agent/redact.js";
import { createPagesHandler, type PagesOptions } from "../../src/pages/router.js";
import type { PagesSettings } from "../../src/pages/settings.js";
import {
  type FakeOAuthGitHub,
  type FakePermission,
  startFakeOAuthGitHub,
} from "./fake-github-oauth.js";
import { createFakeJobsView, type FakeJobsView } from "./fake-jobs-view.js";

/**
 * The job pages on a loopback server, beside a fake GitHub and a fake job
 * view, with a way to sign in as anyone the way a browser does (login ->
 * authorize -> callback, cookies carried by hand).
 */

export interface PagesHarness {
  url: string;
  github: FakeOAuthGitHub;
  view: FakeJobsView;
  settings: PagesSettings;
  /** The session cookie ("pw_session=...") of a person signed in through the real flow. */
  signIn(login: string): Promise<string>;
  close(): Promise<void>;
}

export const CLIENT_ID = "Iv1.pagesclient";
export const CLIENT_SECRET = "pages-client-secret-0123456789abcdef";

export async function startPagesHarness(input: {
  permissions: Record<string, Record<string, FakePermission>>;
  admins?: string[];
  /** Values the redactor knows (as the job's secrets). */
  secrets?: string[];
  options?: Partial<PagesOptions>;
}): Promise<PagesHarness> {
  const github = await startFakeOAuthGitHub({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    permissions: input.permissions,
  });
  const view = createFakeJobsView({ redactor: createRedactor(input.secrets ?? []) });
  let handler: ReturnType<typeof createPagesHandler> | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (!(await handler?.(req, res))) res.writeHead(404).end("not pages");
    })();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings: PagesSettings = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    sessionSecret: Buffer.from("a session secret of more than thirty-two characters"),
    admins: new Set(input.admins ?? []),
    publicUrl: url,
    apiBaseUrl: github.apiBaseUrl,
  };
  handler = createPagesHandler({
    config: { on: true, settings },
    view,
    listRefreshMs: 300,
    heartbeatMs: 1000,
    ...input.options,
  });

  const signIn = async (login: string): Promise<string> => {
    github.signInAs(login);
    const start = await fetch(`${url}/jobs/login`, { redirect: "manual" });
    const signInCookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const atGitHub = await fetch(start.headers.get("location") ?? "", { redirect: "manual" });
    const back = await fetch(atGitHub.headers.get("location") ?? "", {
      redirect: "manual",
      headers: { cookie: signInCookie },
    });
    const session = back.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith("pw_session=") && !cookie.startsWith("pw_session=;"));
    if (!session) throw new Error(`sign-in failed: ${back.status} ${await back.text()}`);
    return session.split(";")[0] ?? "";
  };

  return {
    url,
    github,
    view,
    settings,
    signIn,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await github.close();
    },
  };
}
