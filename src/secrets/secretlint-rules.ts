import { rules as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretMatch, SecretRule } from "./rule.js";

/**
 * secretlint's recommended preset (maintained upstream, one bundled file, no
 * dependencies) run on plain text: a rule is given a context that collects
 * its reports instead of secretlint's core, which would bring its own
 * dependencies for nothing we use (config files, formatters, profiles).
 */

interface Translated {
  messageId: string;
  props: Record<string, unknown>;
}

interface RuleContext {
  createTranslator(
    messages: unknown,
  ): (messageId: string, props?: Record<string, unknown>) => Translated;
  report(report: { message: Translated; range: readonly [number, number] }): void;
  ignore(): void;
}

interface SecretlintRule {
  meta: { id: string };
  create(
    context: RuleContext,
    options: Record<string, unknown>,
  ): { file?: (source: unknown) => unknown };
}

/**
 * Left out: `filter-comments` honours `secretlint-disable` comments, which
 * untrusted text (a CI log, a comment) could use to switch detection off;
 * `gcp` judges a whole `.json` or `.p12` file by its name, and text here has
 * none (a service account's key is caught by the private key rules).
 */
const LEFT_OUT = new Set(["filter-comments", "gcp"]);

/**
 * Upstream defaults throughout. AWS key ids stay off here (their scan
 * comes with an account-id scan that costs most of the preset's time and
 * finds identifiers, not credentials); extra-rules.ts has the key ids.
 */
const OPTIONS: Record<string, Record<string, unknown>> = {};

/**
 * Each rule's keywords (rule.ts), read from its patterns in the preset's
 * release that package.json pins (test/secrets/rule-keywords.test.ts fails
 * on another, and checks these against each rule's examples):
 * - aws: `(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)` (its id scans are off);
 * - privatekey: `-----BEGIN[ ]?(...)?PRIVATE KEY`;
 * - npm: `npm_` (its scans for `x-oauth-basic` and `_authToken=` run on a package.json or an .npmrc,
 *   and `find` names no file);
 * - basicauth: `(?:https?|ftp|ftps)://user:password@`;
 * - slack: `xoxb-` and its kin, `xapp-`, `https://hooks.slack.com/` (case-insensitive, not Unicode);
 * - sendgrid `SG.`, shopify `shppa_` `shpca_` `shpat_` `shpss_`, github `ghp_` and its kin and
 *   `github_pat_`, openai `sk-`, anthropic `sk-ant-api0`, linear `lin_api_`, 1password `ops_ey`;
 * - database-connection-string: `mongodb`, `mysql`, `postgres` before `://` (case-insensitive, not Unicode).
 * A case-insensitive pattern without the `u` flag matches an ASCII letter with ASCII letters only,
 * so the lowercased text holds the keyword whenever it matches. A rule not named here runs on every text.
 */
/** The preset's release the keywords were read from. */
export const KEYWORDS_READ_FROM = "11.7.1";

const KEYWORDS: Record<string, readonly string[]> = {
  aws: ["secretaccess", "secret_access"],
  privatekey: ["-----begin"],
  npm: ["npm_"],
  basicauth: ["://"],
  slack: ["xoxb-", "xoxp-", "xapp-", "xoxa-", "xoxo-", "xoxr-", "hooks.slack.com/"],
  sendgrid: ["sg."],
  shopify: ["shppa_", "shpca_", "shpat_", "shpss_"],
  github: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  openai: ["sk-"],
  anthropic: ["sk-ant-api0"],
  linear: ["lin_api_"],
  "1password": ["ops_ey"],
  "database-connection-string": ["mongodb", "mysql", "postgres"],
};

/** `AWSSecretAccessKey` -> `aws-secret-access-key`, `NPM_ACCESS_TOKEN` -> `npm-access-token`. */
function kebabId(messageId: string): string {
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/** The matched value a rule names in its message (its range is not always the value's). */
function reportedValue(props: Record<string, unknown>): string | undefined {
  for (const key of ["KEY", "TOKEN", "ID", "CREDENTIAL", "URL", "URI"]) {
    const value = props[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

/** `scheme://user:password@`: where the password starts and ends in the URL. */
const URL_PASSWORD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s@]+)@/d;

function spanOf(content: string, translated: Translated, range: readonly [number, number]) {
  const value = reportedValue(translated.props);
  // The AWS secret rule reports the whole match's start with the key's
  // length, which would leave the key's tail in the text; the value itself
  // is the span to cover.
  const at = value === undefined ? -1 : content.indexOf(value, Math.max(0, range[0]));
  if (at < 0 || value === undefined) return { start: range[0], end: range[1] };
  // A URL with a password (basic auth, a database's) keeps its host and path
  // readable: what failed where is often the point of the log.
  const password = URL_PASSWORD.exec(value)?.indices?.[1];
  return password
    ? { start: at + password[0], end: at + password[1] }
    : { start: at, end: at + value.length };
}

function asRule(rule: SecretlintRule): SecretRule {
  const name = rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, "");
  const options = OPTIONS[name] ?? {};
  const keywords = KEYWORDS[name];
  return {
    id: name,
    ...(keywords ? { keywords } : {}),
    find(content: string): SecretMatch[] {
      const found: SecretMatch[] = [];
      const context: RuleContext = {
        createTranslator:
          () =>
          (messageId, props = {}) => ({ messageId, props }),
        report: ({ message, range }) => {
          found.push({ ...spanOf(content, message, range), rule: kebabId(message.messageId) });
        },
        ignore: () => {},
      };
      rule.create(context, options).file?.({ content, ext: "", contentType: "text" });
      return found;
    },
  };
}

/** The preset's rules, in its order, as detector rules. */
export const SECRETLINT_RULES: readonly SecretRule[] = (recommended as unknown as SecretlintRule[])
  .filter((rule) => !LEFT_OUT.has(rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, "")))
  .map(asRule);
