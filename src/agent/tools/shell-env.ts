import { CA_VARIABLES } from "../../sandbox/trust/ca-variables.js";
import { createSecretDetector } from "../../secrets/detector.js";

/**
 * Variables the agent's shell may inherit. An allowlist, not a denylist: a
 * host can hold any number of credentials under names nobody predicted, and
 * none of them may reach a command the model chose. NODE_OPTIONS is left out
 * on purpose, since it can carry `--require` of the host's own files.
 */
const ALLOWED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TERM",
  "TZ",
  "CI",
  "TMPDIR",
  "TEMP",
  "TMP",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  // Toolchain locations, so builds find the compilers and caches the host set up.
  "npm_config_cache",
  "JAVA_HOME",
  "GOPATH",
  "GOROOT",
  "GOCACHE",
  "GOMODCACHE",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "PNPM_HOME",
  "COREPACK_HOME",
  // corepack's registry (a mirror) and its check of npm's signatures (0: off), for the commands it starts.
  "COREPACK_NPM_REGISTRY",
  "COREPACK_INTEGRITY_KEYS",
  "VOLTA_HOME",
  "NVM_DIR",
  // Proxies and CA bundles, so installs work behind a corporate proxy (a
  // sandbox sets its own from the host's trust, see sandbox/trust/; these
  // are for commands run without one). A proxy with a password is dropped below.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  ...CA_VARIABLES,
] as const;

/** Fixed values that keep every command non-interactive and its output plain. */
const FIXED: Record<string, string> = {
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  DEBIAN_FRONTEND: "noninteractive",
  // A sandbox's HOME is new for every job (or command), so npm would look for a newer
  // npm each time: a registry request, and about 0.2 s of CPU per command on
  // the 2-core VM, to print a notice nobody reads.
  npm_config_update_notifier: "false",
};

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Token prefixes of GitHub and Anthropic, PEM blocks, AWS key ids, passwords inside URLs. */
const SECRET_VALUE =
  /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_|sk-ant-|AKIA[0-9A-Z]{16})|-----BEGIN|:\/\/[^/\s:@]+:[^/\s@]+@/;

const detector = createSecretDetector();

/**
 * Verdicts by value: every job and session builds its shell's environment
 * from the same host variables (the Action three times before its first
 * model request), and the detector's rules over them cost 2–6 ms a build
 * after the first on the 2-core VM; 0.1 ms with these. A verdict depends on
 * the value alone; a few hundred are kept.
 */
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 512;

export function looksLikeSecret(value: string): boolean {
  const known = verdicts.get(value);
  if (known !== undefined) return known;
  const verdict = SECRET_VALUE.test(value) || detector.find(value).length > 0;
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(value, verdict);
  return verdict;
}

/**
 * Builds the complete environment for the agent's shell and git commands from
 * an allowlist of `source` (usually process.env) plus fixed non-interactive
 * settings; `extra` is added last (the caller's own choices, e.g. a HOME for
 * the job). Any value that looks like a credential is dropped, even from an
 * allowed name or from `extra`.
 */
export function buildShellEnv(
  source: Record<string, string | undefined>,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ALLOWED) {
    const value = source[name];
    if (value !== undefined && !looksLikeSecret(value)) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  Object.assign(env, FIXED);
  for (const [name, value] of Object.entries(extra)) {
    if (!looksLikeSecret(value)) env[name] = value;
  }
  return env;
}
