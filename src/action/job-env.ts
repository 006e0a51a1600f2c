/** Runner variables that are credentials or job plumbing: git and the job never need them. */
export function jobEnv(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !/^(INPUT_|ACTIONS_)/.test(name) && name !== "GITHUB_TOKEN",
    ),
  );
}
