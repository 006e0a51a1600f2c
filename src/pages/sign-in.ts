import type { IncomingMessage, ServerResponse } from "node:http";
import { errorMessage } from "../error-message.js";
import { clearCookie, readCookies, setCookie } from "./auth/cookies.js";
import { authorizeUrl, exchangeCode, readLogin } from "./auth/oauth.js";
import { SESSION_SECONDS, type SessionCodec, SIGN_IN_SECONDS, sameSecret } from "./auth/session.js";
import { type PagesLog, redirect, sendHtml } from "./http.js";
import { problemPage } from "./render/pages.js";
import type { PagesSettings } from "./settings.js";

/**
 * Sign-in with GitHub, the OAuth web flow: `start` sends the person to
 * GitHub with a random `state` kept in a signed, short-lived cookie;
 * `callback` checks that state, exchanges the code, reads who signed in
 * and sets the session cookie (auth/session.ts seals the token).
 */

export const SESSION_COOKIE = "pw_session";
const SIGN_IN_COOKIE = "pw_signin";

export function createSignIn(options: {
  settings: PagesSettings;
  codec: SessionCodec;
  secure: boolean;
  log?: PagesLog | undefined;
}) {
  const { settings, codec, secure } = options;
  const start = (res: ServerResponse, url: URL) => {
    const next = safeNext(url.searchParams.get("next"));
    const { value, signIn } = codec.sealSignIn(next);
    res.writeHead(302, {
      location: authorizeUrl(settings, signIn.state),
      "set-cookie": setCookie(SIGN_IN_COOKIE, value, { maxAgeSeconds: SIGN_IN_SECONDS, secure }),
      "cache-control": "no-store",
    });
    res.end();
  };

  const callback = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const cookies = readCookies(req);
    const started = codec.openSignIn(cookies.get(SIGN_IN_COOKIE));
    const clear = { "set-cookie": clearCookie(SIGN_IN_COOKIE, secure) };
    const denied = url.searchParams.get("error");
    if (denied) {
      sendHtml(
        res,
        403,
        problemPage("Not signed in", `GitHub did not sign you in (${denied}).`),
        clear,
      );
      return;
    }
    const state = url.searchParams.get("state") ?? "";
    const code = url.searchParams.get("code") ?? "";
    if (!started || !state || !code || !sameSecret(state, started.state)) {
      sendHtml(
        res,
        400,
        problemPage(
          "Sign-in not accepted",
          "This sign-in was not started here, or took too long. Start again from the job pages.",
        ),
        clear,
      );
      return;
    }
    let token: string;
    let login: string;
    try {
      token = await exchangeCode(settings, code);
      login = await readLogin(settings, token);
    } catch (error) {
      // The message only: an OAuth error's request holds the client secret.
      options.log?.warn({ error: errorMessage(error) }, "job pages: sign-in failed");
      sendHtml(
        res,
        502,
        problemPage("Sign-in failed", "GitHub did not complete the sign-in."),
        clear,
      );
      return;
    }
    const { value } = codec.sealSession({ login, token });
    redirect(res, started.next, {
      "set-cookie": [
        clearCookie(SIGN_IN_COOKIE, secure),
        setCookie(SESSION_COOKIE, value, { maxAgeSeconds: SESSION_SECONDS, secure }),
      ],
    });
  };

  return { start, callback };
}

/** Back to a page of ours after sign-in; anything else (another site, //host) is the list. */
function safeNext(next: string | null): string {
  if (!next || !/^\/jobs(?:[/?]|$)/.test(next) || /[\\\s]/.test(next)) return "/jobs";
  if (next.startsWith("/jobs/login") || next.startsWith("/jobs/callback")) return "/jobs";
  return next;
}
