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
