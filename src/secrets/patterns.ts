/**
 * Shapes of credentials that are recognisable wherever they appear: in
 * command output, files, thread text or commits, someone else's token is
 * still a token. Global regexes; callers reset lastIndex or use replace/match.
 */
export const TOKEN_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  {
    name: "a private key",
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  },
  { name: "a GitHub token", pattern: /\bgh[opusr]_[A-Za-z0-9]{20,}\b/g },
  { name: "a GitHub token", pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g },
  { name: "an Anthropic API key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "an AWS access key id", pattern: /\bAKIA[0-9A-Z]{16}\b/g },
  { name: "a Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "a token in a git URL", pattern: /(x-access-token:)[^@\s]+@/g },
];

/**
 * Environment variables whose values are secrets by their name: the keys
 * and tokens a server or a workflow is given. Their values are redacted
 * everywhere and may never leave in a commit.
 */
const SECRET_NAME =
  /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|(^|_)(API_KEY|PRIVATE_KEY|ACCESS_KEY|SECRET_KEY|AUTH_KEY)$|(^|_)BEARER_TOKEN(_|$)/i;

/** Values shorter than this are too likely to occur by chance to match blindly. */
export const MIN_SECRET_LENGTH = 8;

/** The secret values in an environment, with the name each came from (for reports). */
export function secretsInEnv(
  env: Record<string, string | undefined>,
): Array<{ name: string; value: string }> {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && (value?.length ?? 0) >= MIN_SECRET_LENGTH)
    .map(([name, value]) => ({ name, value: value as string }));
}
