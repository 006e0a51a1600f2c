import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";

/**
 * Signed cookie values: base64url(JSON) "." base64url(HMAC-SHA256), with an
 * expiry inside the signed part, so a changed or stale cookie is no
 * session. The user's GitHub token inside is encrypted as well (AES-256-GCM),
 * so the cookie itself never shows it; neither key is the secret itself
 * (HKDF with one purpose each).
 */

export interface Session {
  login: string;
  /** The user's own token: read only to ask GitHub what they may see. */
  token: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  expiresAt: number;
}

/** The sign-in in progress: the `state` GitHub must send back, and where to go after. */
export interface SignIn {
  state: string;
  next: string;
  expiresAt: number;
}

export interface SessionCodec {
  sealSession(session: Omit<Session, "csrf" | "expiresAt">): { value: string; session: Session };
  openSession(value: string | undefined): Session | undefined;
  sealSignIn(next: string): { value: string; signIn: SignIn };
  openSignIn(value: string | undefined): SignIn | undefined;
}

export const SESSION_SECONDS = 8 * 60 * 60;
export const SIGN_IN_SECONDS = 10 * 60;

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Equal strings, in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "", purpose, 32));
}

export function createSessionCodec(secret: Buffer, clock: { now(): number }): SessionCodec {
  const macKey = derive(secret, "patchwright pages cookie signature");
  const tokenKey = derive(secret, "patchwright pages token encryption");

  const mac = (kind: string, body: string) =>
    createHmac("sha256", macKey).update(`${kind}.${body}`).digest("base64url");

  const sign = (kind: string, payload: object): string => {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${mac(kind, body)}`;
  };

  const verify = (kind: string, value: string | undefined): Record<string, unknown> | undefined => {
    if (!value) return undefined;
    const [body, signature, extra] = value.split(".");
    if (!body || !signature || extra !== undefined) return undefined;
    if (!sameSecret(signature, mac(kind, body))) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
      if (typeof payload !== "object" || payload === null) return undefined;
      const record = payload as Record<string, unknown>;
      if (typeof record.e !== "number" || record.e <= clock.now()) return undefined;
      return record;
    } catch {
      return undefined;
    }
  };

  const encrypt = (token: string): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", tokenKey, iv);
    const sealed = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
  };

  const decrypt = (value: string): string | undefined => {
    try {
      const bytes = Buffer.from(value, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", tokenKey, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      return undefined;
    }
  };

  return {
    sealSession({ login, token }) {
      const session = {
        login,
        token,
        csrf: randomToken(),
        expiresAt: clock.now() + SESSION_SECONDS * 1000,
      };
      const value = sign("session", {
        l: login,
        t: encrypt(token),
        c: session.csrf,
        e: session.expiresAt,
      });
      return { value, session };
    },
    openSession(value) {
      const payload = verify("session", value);
      if (!payload) return undefined;
      const { l, t, c, e } = payload;
      if (typeof l !== "string" || typeof t !== "string" || typeof c !== "string") return undefined;
      const token = decrypt(t);
      if (!token) return undefined;
      return { login: l, token, csrf: c, expiresAt: e as number };
    },
    sealSignIn(next) {
      const signIn = {
        state: randomToken(),
        next,
        expiresAt: clock.now() + SIGN_IN_SECONDS * 1000,
      };
      return { value: sign("sign-in", { s: signIn.state, n: next, e: signIn.expiresAt }), signIn };
    },
    openSignIn(value) {
      const payload = verify("sign-in", value);
      if (!payload || typeof payload.s !== "string" || typeof payload.n !== "string") {
        return undefined;
      }
      return { state: payload.s, next: payload.n, expiresAt: payload.e as number };
    },
  };
}
