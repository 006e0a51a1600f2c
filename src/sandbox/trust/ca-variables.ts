/**
 * Variables naming a CA bundle or folder, by the tools that read them: the
 * host's trust reads them (host-trust.ts) and the agent's shell may inherit
 * them (agent/tools/shell-env.ts). Apart from host-trust.ts so that the
 * shell's environment, built before the Action's first model request, does
 * not load the rest of the trust code with it.
 */
export const CA_VARIABLES = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "PIP_CERT",
  "AWS_CA_BUNDLE",
] as const;
