import { realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/**
 * Credential files the server's environment points at, by the names their
 * own tools read (Probot's PRIVATE_KEY_PATH, Google's and AWS's SDKs, npm,
 * kubectl, docker, gh). They can sit anywhere, /etc included, which every
 * sandbox shows read-only; so each is hidden by name, at its real path too
 * (a symlinked key is readable through its target).
 */

/** Variables naming one file or folder that holds a credential. */
const SECRET_PATH_VARIABLES = [
  "PRIVATE_KEY_PATH",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_CONFIG_FILE",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AZURE_CONFIG_DIR",
  "NPM_CONFIG_USERCONFIG",
  "npm_config_userconfig",
  "NPM_CONFIG_GLOBALCONFIG",
  "npm_config_globalconfig",
  // pnpm 11 and later read these, not npm_config_*: a user .npmrc, and the file pnpm keeps tokens in.
  "PNPM_CONFIG_USERCONFIG",
  "pnpm_config_userconfig",
  "PNPM_CONFIG_NPMRC_AUTH_FILE",
  "pnpm_config_npmrc_auth_file",
  "DOCKER_CONFIG",
  "GH_CONFIG_DIR",
  "NETRC",
  "PGPASSFILE",
  "SSH_AUTH_SOCK",
];

/** KUBECONFIG is a list, like PATH. */
const SECRET_PATH_LISTS = ["KUBECONFIG"];

/** Where those tools look by default, under the server's HOME. */
const HOME_SECRETS = [
  ".aws",
  ".config/gcloud",
  ".azure",
  ".npmrc",
  // pnpm 11's login tokens (auth.ini) and pnpm 12's (`_auth` in its global config.yaml).
  ".config/pnpm",
  ".yarnrc.yml",
  ".netrc",
  ".git-credentials",
  ".ssh",
  ".docker",
  ".kube",
  ".config/gh",
  ".pgpass",
];

/**
 * The credential files named by `env` (relative names resolved from `cwd`)
 * and the usual ones under `home`, each with its real path when that
 * differs. Paths that do not exist are kept: the layout skips them.
 */
export function secretFilesInEnv(
  env: Record<string, string | undefined>,
  options: { cwd: string; home: string | undefined },
): string[] {
  const named = SECRET_PATH_VARIABLES.map((name) => env[name]);
  for (const name of SECRET_PATH_LISTS) named.push(...(env[name]?.split(":") ?? []));
  const paths = named
    .filter((value): value is string => Boolean(value?.trim()))
    .map((value) => resolve(options.cwd, value.trim()));
  if (options.home && isAbsolute(options.home)) {
    paths.push(...HOME_SECRETS.map((name) => join(options.home ?? "", name)));
  }
  const all = new Set<string>();
  for (const path of paths) {
    all.add(path);
    const real = realpathOrNull(path);
    if (real) all.add(real);
  }
  return [...all];
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
