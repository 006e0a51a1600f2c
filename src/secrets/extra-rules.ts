import type { SecretMatch, SecretRule } from "./rule.js";

/**
 * What secretlint's recommended preset does not cover, in the same form:
 * token families it has no rule for (Stripe, PyPI, Azure, Google API keys,
 * GitLab, Hugging Face, JWTs), shapes it judges more narrowly than a
 * redactor should (a GitHub token of another length, a private key whose
 * body is not real base64, the AWS documentation's example key, an npm
 * `_authToken` outside a file called .npmrc), and the context rules that
 * catch secrets with no prefix of their own: `AWS_SECRET_ACCESS_KEY=…`, a
 * password in a URL or a query, `_authToken=`, `Authorization: Bearer …`,
 * `DB_PASSWORD=…`. Each rule finds the secret itself (the `secret` group
 * when there is one), so the name before it stays readable.
 */

type Keep = (secret: string) => boolean;

/**
 * A rule from one pattern. `keywords` (rule.ts): literals of which every
 * match holds one, lowercased; test/secrets/rule-keywords.test.ts checks
 * them against each rule's examples.
 */
function patternRule(
  id: string,
  keywords: readonly string[] | undefined,
  pattern: RegExp,
  keep: Keep = () => true,
): SecretRule {
  // `d`: where the secret group starts, not only the whole match.
  const withIndices = new RegExp(pattern.source, `${pattern.flags}d`);
  return {
    id,
    ...(keywords ? { keywords } : {}),
    find(text: string): SecretMatch[] {
      const found: SecretMatch[] = [];
      for (const match of text.matchAll(withIndices)) {
        const [start, end] = match.indices?.groups?.secret ?? [
          match.index,
          match.index + match[0].length,
        ];
        if (end > start && keep(text.slice(start, end))) found.push({ start, end, rule: id });
      }
      return found;
    },
  };
}

/** Words people put where a value goes: never a secret themselves. */
const PLACEHOLDER =
  /^(?:x+|\*+|\.+|-+|password|passwd|pass|secret|changeme|change[_-]?it|example|sample|dummy|placeholder|redacted|hidden|none|null|nil|undefined|true|false|user(?:name)?|admin|root|guest|test|postgres|mysql|token|your[_-].*|my[_-]?(?:password|secret|token).*|<.*>|\[.*\]|\{.*\})$/i;

/** A reference to a value rather than the value: `${VAR}`, `$VAR`, `%VAR%`, `{{ x }}`, `env.X`, `f(x)`. */
function isReference(value: string): boolean {
  return (
    /^[$%{<([]/.test(value) ||
    /[$@#]\{|\{\{|\(|\[|\|\||&&|=>|^this\./.test(value) ||
    /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(value)
  );
}

/** For a URL's password: anything but a placeholder or a reference. */
function isCredential(value: string): boolean {
  return value.length >= 3 && !PLACEHOLDER.test(value) && !isReference(value);
}

/**
 * For a value found only by its name (`api_key: …`): it must look made up,
 * with a digit or a symbol, or be long and mixed case; plain words and
 * identifiers (`token: accessToken`, `password: required`) are code, not
 * secrets.
 */
function isAssignedSecret(value: string): boolean {
  if (!isCredential(value) || /^\d+$/.test(value) || /^(?:\/|~\/|\.\.?\/)/.test(value)) {
    return false;
  }
  if (TYPE_NAME.test(value)) return false;
  const symbol = /[0-9]|[^A-Za-z0-9_.-]/.test(value);
  const mixedLong = value.length >= 20 && /[a-z]/.test(value) && /[A-Z]/.test(value);
  return symbol || mixedLong;
}

/**
 * A type or class name that names a kind of secret (`credential:
 * StorageSharedKeyCredential`, `token: OAuth2TokenCredential`): TypeScript's
 * annotations, which source maps and diffs are full of, and never a value.
 * A passphrase in words (`CorrectHorseBatteryStaple`) does not end so.
 */
const TYPE_NAME = /^[A-Z][A-Za-z0-9]*(?:Credentials?|Token|Key|Secret|Password)$/;

/**
 * The end of a name that says its value is secret (`DB_PASSWORD`,
 * `client_secret`, `--api-key`); what comes before it does not matter.
 */
const SECRET_NAME =
  "(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|credential)";

/** Rules by family; each id is what `[redacted: <id>]` says. */
export const EXTRA_RULES: readonly SecretRule[] = [
  patternRule(
    "private-key",
    ["-----begin"],
    // The whole block, whatever prefixes its lines (line numbers, a log's
    // timestamps, a diff's +) but with no quote, brace or semicolon in it,
    // so code that names the markers is left alone; a block cut off before
    // its END line (a truncated log) loses its lines as far as they go.
    /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[^"'`;{}()<>]{0,20000}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n)?(?:(?:[^\n"'`;{}()<>\\]|\\[nrt])+(?:\r?\n|$|(?=["'`]))){1,80})/g,
  ),
  patternRule(
    "github-token",
    ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    /(?<![A-Za-z0-9_])(?:gh[opusr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  ),
  patternRule("anthropic-api-key", ["sk-ant-"], /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{16,}/g),
  patternRule(
    "openai-api-key",
    ["sk-"],
    /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48}(?![A-Za-z0-9])|[A-Za-z0-9_-]{0,100}T3BlbkFJ[A-Za-z0-9_-]+)/g,
  ),
  patternRule(
    "aws-access-key-id",
    ["akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t"],
    /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])/g,
  ),
  patternRule(
    "aws-secret-access-key",
    ["secretkey", "secret-key", "secret_key", "secretaccess", "secret-access", "secret_access"],
    /(?:aws[-_]?)?(?:secret[-_]?(?:access[-_]?)?key|secretaccesskey)["'`]?\s*(?:[:=]|=>|\s)\s*["'`]?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
  ),
  patternRule(
    "stripe-key",
    ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
    /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})/g,
  ),
  patternRule("pypi-token", ["pypi-age"], /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{40,}/g),
  patternRule(
    "azure-key",
    ["accountkey", "sharedaccesskey", "primarykey", "secondarykey"],
    /(?<![A-Za-z])(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)\s*=\s*(?<secret>[A-Za-z0-9+/]{20,}={0,2})/gi,
  ),
  patternRule("azure-sas-signature", ["sig="], /[?&;]sig=(?<secret>[A-Za-z0-9%+/=]{16,})/g),
  patternRule(
    "azure-client-secret",
    ["q~"],
    /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
  ),
  patternRule(
    "google-api-key",
    ["aiza"],
    /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
  ),
  patternRule("google-client-secret", ["gocspx-"], /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}/g),
  patternRule(
    "google-service-account-key-id",
    ['"private_key_id"'],
    /"private_key_id"\s*:\s*"(?<secret>[0-9a-f]{40})"/g,
  ),
  patternRule(
    "slack-token",
    ["xox", "xapp-"],
    /(?<![A-Za-z0-9])(?:xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
  ),
  patternRule(
    "other-token",
    ["glpat-", "hf_", "dckr_pat_", "dop_v1_", "npm_"],
    /(?<![A-Za-z0-9_-])(?:glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z]{30,}|dckr_pat_[A-Za-z0-9_-]{20,}|dop_v1_[a-f0-9]{64}|npm_[A-Za-z0-9]{36})(?![A-Za-z0-9_-])/g,
  ),
  patternRule(
    "json-web-token",
    ["eyj"],
    /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  ),
  patternRule(
    "npm-auth",
    ["_auth", "_password"],
    /(?<![A-Za-z0-9])(?:_authToken|_auth|_password)\s*=\s*["']?(?<secret>[^\s"'#;]+)/g,
    isCredential,
  ),
  patternRule(
    "password-in-url",
    ["://"],
    /:\/\/[^\s:/?#@'"<>]*:(?<secret>[^\s@/?#'"<>]+)@(?<=[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s]*)/g,
    isCredential,
  ),
  patternRule(
    "secret-in-query",
    // Each name with its `=` (access_token= holds token=, client_secret= holds secret=).
    [
      "pass=",
      "passwd=",
      "password=",
      "pwd=",
      "token=",
      "api_key=",
      "apikey=",
      "api-key=",
      "secret=",
      "signature=",
    ],
    /[?&;](?:password|passwd|pwd|pass|token|access_token|refresh_token|id_token|api_key|apikey|api-key|client_secret|secret|signature)=(?<secret>[^&\s#'"<>]{6,})/gi,
    isAssignedSecret,
  ),
  patternRule(
    "authorization-header",
    ["authorization"],
    /\b(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:Bearer|Basic|token|Token|Digest|Bot)\s+(?<secret>[A-Za-z0-9._~+/=-]{8,})/gi,
    isCredential,
  ),
  patternRule(
    "netrc-password",
    ["machine"],
    /\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?<secret>\S+)/g,
    isCredential,
  ),
  patternRule(
    "secret-assignment",
    ["pass", "secret", "token", "key", "credential"],
    new RegExp(
      `${SECRET_NAME}["'\`]?\\s*(?:=>|:=|=|:(?=[\\s"'\`]))\\s*(?<q>["'\`]?)(?<secret>[^\\s"'\`,;)}\\]<>\\\\]{8,})\\k<q>`,
      "gi",
    ),
    isAssignedSecret,
  ),
];
