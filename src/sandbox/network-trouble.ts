import type { NetworkPolicy } from "./network.js";

/**
 * Network failures, recognised in what a command prints: a TLS certificate
 * nobody trusts, a name that does not resolve, a connection refused, a
 * proxy asking for a password, the sandbox's own allow-list saying no. A
 * package manager retrying for minutes prints them long before it gives
 * up; naming them while they happen (with which host, which error and
 * which setting to look at) is what turns ten silent minutes into one
 * line a person can act on.
 */

export type TroubleKind = "tls" | "dns" | "connection" | "proxy-auth" | "blocked" | "unsigned";

export interface NetworkTrouble {
  kind: TroubleKind;
  /** The error's own name (SELF_SIGNED_CERT_IN_CHAIN, ENOTFOUND, 407…). */
  code: string;
  /** The host it was about, when the output says. */
  host?: string | undefined;
}

interface Rule {
  kind: TroubleKind;
  pattern: RegExp;
  /** The code, from the match or fixed. */
  code: (match: RegExpExecArray) => string;
  /** The host, when the match itself has it. */
  host?: (match: RegExpExecArray) => string | undefined;
}

const NODE_TLS_CODES =
  "SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_HAS_EXPIRED|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID";

/** Most specific first: a line is named by the first rule that matches it. */
const RULES: Rule[] = [
  {
    // corepack verifies a package manager's release by npm's registry
    // signatures, which a registry mirror or a rewriting proxy leaves out.
    kind: "unsigned",
    pattern:
      /(No compatible signature found in package metadata|The package was not signed by any trusted keys)/,
    code: (m) => m[1] ?? "",
  },
  {
    kind: "blocked",
    pattern: /patchwright sandbox: (\S+?)(?::\d+)? is not in this repository's network allow-list/,
    code: () => "not in the allow-list",
    host: (m) => m[1],
  },
  {
    kind: "blocked",
    pattern: /patchwright sandbox: (\S+) resolves to an address of this machine/,
    code: () => "an address of this machine",
    host: (m) => m[1],
  },
  {
    // A status said as one (npm's E407, pnpm's FETCH_407, "response 407", "HTTP
    // code 407", "error: 407", undici's "Proxy response (407)"), never a bare 407: lerna's real npm ci printed one
    // (a count or a version) and was told its proxy wanted a password.
    kind: "proxy-auth",
    pattern:
      /Proxy Authentication Required|Proxy response \(407\)|\b(?:E407|FETCH_407)\b|\b(?:status(?:\s*code)?|statusCode|HTTP(?:\/[\d.]+)?|code|response|error):?[\s=]*407\b/i,
    code: () => "407 Proxy Authentication Required",
  },
  {
    kind: "blocked",
    pattern:
      /statusCode=403|CONNECT tunnel failed, response 403|Received HTTP code 403 from proxy/i,
    code: () => "403 from the proxy",
  },
  { kind: "tls", pattern: new RegExp(`\\b(${NODE_TLS_CODES})\\b`), code: (m) => m[1] ?? "" },
  {
    kind: "tls",
    pattern:
      /(self[- ]signed certificate in certificate chain|unable to get local issuer certificate|unable to verify the first certificate|certificate verify failed|server certificate verification failed|certificate signed by unknown authority|SSL certificate problem[^\n]*)/i,
    code: (m) => (m[1] ?? "").trim(),
  },
  {
    kind: "dns",
    pattern: /\b(ENOTFOUND|EAI_AGAIN)\b(?:\s+([a-z0-9.-]+\.[a-z0-9-]+))?/i,
    code: (m) => (m[1] ?? "").toUpperCase(),
    host: (m) => m[2],
  },
  {
    kind: "dns",
    pattern: /Could not resolve (?:host|proxy): ([^\s;]+)/i,
    code: () => "could not resolve host",
    host: (m) => m[1],
  },
  {
    kind: "dns",
    pattern:
      /(Temporary failure in name resolution|Name or service not known|NameResolutionError|no such host)/i,
    code: (m) => m[1] ?? "",
  },
  {
    kind: "connection",
    pattern:
      /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b(?:\s+\[?([0-9a-f.:]+?)\]?:(\d+))?/i,
    code: (m) => (m[1] ?? "").toUpperCase(),
    host: (m) => m[2],
  },
  {
    kind: "connection",
    pattern: /Failed to connect to ([^\s]+) port \d+/i,
    code: () => "failed to connect",
    host: (m) => m[1],
  },
  {
    kind: "connection",
    pattern: /(Network is unreachable|Connection refused|Connection timed out)/i,
    code: (m) => m[1] ?? "",
  },
];

const URL_HOST = /\bhttps?:\/\/(?:[^/\s@'"]+@)?([a-z0-9.-]+|\[[0-9a-f:]+\])/i;
/** Python's connection pools name the host this way. */
const POOL_HOST = /\bhost='([a-z0-9.-]+)'/i;
/** Lines around the error where the host may be named (npm says it a few lines on). */
const NEARBY = 3;
/** A line nearby names the failing request, not a help page ("More details here: https://…"). */
const REQUEST_LINE = /request to|unable to access|\bfailed\b|\bfetch|\bGET\b|could not/i;
/** The first network failure in `text`, or undefined. */
export function findNetworkTrouble(text: string): NetworkTrouble | undefined {
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const trouble = troubleAt(lines, index);
    if (trouble) return trouble;
  }
  return undefined;
}

/** The failure line `index` shows, with the host from the lines around it if it does not say. */
function troubleAt(lines: string[], index: number): NetworkTrouble | undefined {
  const line = lines[index] ?? "";
  for (const rule of RULES) {
    const match = rule.pattern.exec(line);
    if (!match) continue;
    const host = rule.host?.(match) ?? hostNear(lines, index);
    return { kind: rule.kind, code: rule.code(match), ...(host ? { host } : {}) };
  }
  return undefined;
}

function hostNear(lines: string[], index: number): string | undefined {
  const own = hostIn(lines[index] ?? "");
  if (own) return own;
  for (let offset = 1; offset <= NEARBY; offset++) {
    for (const at of [index + offset, index - offset]) {
      const line = lines[at] ?? "";
      if (!REQUEST_LINE.test(line)) continue;
      const host = hostIn(line);
      if (host) return host;
    }
  }
  return undefined;
}

function hostIn(line: string): string | undefined {
  return URL_HOST.exec(line)?.[1] ?? POOL_HOST.exec(line)?.[1];
}

export interface TroubleContext {
  network: NetworkPolicy;
  /** The config key that sets this command's network: `setup_network` or `network`. */
  setting: string;
}

/** One or two sentences: what failed, with which host and error, and what to look at. */
export function describeNetworkTrouble(trouble: NetworkTrouble, context: TroubleContext): string {
  const host = trouble.host ?? "a host";
  const where = `(\`${context.setting}\` in .github/patchwright.yml)`;
  switch (trouble.kind) {
    case "tls":
      return (
        `network: the TLS certificate of ${host} is not trusted (${trouble.code}). ` +
        "If this network inspects HTTPS, the CA it uses must be trusted where patchwright runs " +
        '(NODE_EXTRA_CA_CERTS, SSL_CERT_FILE or npm\'s cafile; see "Company networks" in the README)'
      );
    case "proxy-auth":
      return (
        `network: the proxy asks for a password (${trouble.code}). ` +
        `A proxy URL with a user or password is not given to sandboxes: set ${context.setting} to \`public\` or a host list, and patchwright's own proxy goes through it`
      );
    case "blocked":
      return `network: ${host} is refused by this command's network ${where}: ${trouble.code}; add it to the list to allow it`;
    case "dns":
    case "connection":
      return `network: ${trouble.kind === "dns" ? `${host} cannot be resolved` : `cannot connect to ${host}`} (${trouble.code}). ${networkHint(context, where)}`;
    case "unsigned":
      return (
        `network: corepack could not verify the package manager's release (${trouble.code}): the registry answered without npm's signatures, as a registry mirror or a proxy that rewrites answers does. ` +
        "Pin the release with its hash (`corepack use pnpm@<version>` writes packageManager with `+sha512.…`, which corepack checks instead), " +
        "or, if you trust that registry, set COREPACK_INTEGRITY_KEYS=0 where patchwright runs (COREPACK_NPM_REGISTRY names a mirror; both reach the commands)"
      );
  }
}

function networkHint(context: TroubleContext, where: string): string {
  switch (context.network.kind) {
    case "off":
      return `This command has no network ${where}`;
    case "hosts":
      return `This command reaches only the hosts its network names ${where}`;
    case "on":
      return "This command has the host's network: check the host's DNS and its proxy (HTTPS_PROXY)";
  }
}

/**
 * Watches a command's output as it arrives and reports each kind of
 * failure as soon as its line is complete (the host from the lines before
 * it), and once more if it was reported without a host and a later line
 * names one.
 */
export function watchNetworkTrouble(onTrouble: (trouble: NetworkTrouble) => void): {
  /** `source` keeps lines of different streams (output, a log file) apart. */
  push(chunk: string, source?: string): void;
  first(): NetworkTrouble | undefined;
} {
  /** Per kind: reported with its host, or reported without one (then said again once a host is known). */
  const reported = new Map<TroubleKind, "with host" | "without host">();
  const found: NetworkTrouble[] = [];
  const streams = new Map<string, { recent: string[]; partial: string }>();
  const report = (trouble: NetworkTrouble) => {
    const before = reported.get(trouble.kind);
    if (before === "with host" || (before === "without host" && !trouble.host)) return;
    reported.set(trouble.kind, trouble.host ? "with host" : "without host");
    onTrouble(trouble);
  };
  return {
    push(chunk, source = "") {
      const stream = streams.get(source) ?? { recent: [], partial: "" };
      streams.set(source, stream);
      const lines = (stream.partial + chunk).split(/\r?\n/);
      stream.partial = (lines.pop() ?? "").slice(-4_096);
      for (const line of lines) {
        stream.recent = [...stream.recent.slice(-NEARBY), line];
        const trouble = troubleAt(stream.recent, stream.recent.length - 1);
        if (!trouble) continue;
        found.push(trouble);
        report(trouble);
      }
    },
    first() {
      const [first] = found;
      if (!first || first.host) return first;
      const host = found.find((t) => t.kind === first.kind && t.host)?.host;
      return host ? { ...first, host } : first;
    },
  };
}
