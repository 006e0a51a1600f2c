import { readFile } from "node:fs/promises";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { parseJsonText } from "../../json-text.js";
import { type NetworkPolicy, networkPolicy, networkSettingSchema } from "../../sandbox/network.js";
import * as z from "../../zod.js";
import { PROVIDER_CREDENTIAL_NAMES } from "../model/factory.js";

/**
 * MCP servers as the config names them: `mcp_servers:` in
 * `.github/patchwright.yml`, or the `mcpServers` of a `.mcp.json` file (the
 * shape other agents read). A server is stdio (a command run in the job's
 * sandbox) or HTTP (a URL). Secrets never sit in the file: `env` names the
 * variables to pass (or maps a name to `${VAR}`), headers say `${VAR}` where
 * a value comes from the environment, and only what is named is passed.
 */

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they stay plain. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

const envName = z
  .string()
  .check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" }));

const timeoutSeconds = z
  .number({ error: "expected a number of seconds above 0" })
  .check(
    z.positive({ error: "expected a number of seconds above 0" }),
    z.lte(3600, { error: "expected at most 3600 seconds" }),
  );

const stdioServerSchema = z.strictObject({
  type: z.optional(z.literal("stdio")),
  command: z
    .string()
    .check(z.trim(), z.minLength(1, { error: "expected the command that starts the server" })),
  args: z._default(z.array(z.string(), { error: "expected a list of arguments" }), []),
  /** Variable names passed from the environment, or NAME: "${VAR}" / a literal value. */
  env: z._default(
    z.union([z.array(envName), z.record(envName, z.string())], {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
      error: "expected a list of variable names to pass, or a mapping of NAME: ${VAR}",
    }),
    [],
  ),
  /** The server's own network inside the sandbox: off unless given. */
  network: z._default(networkSettingSchema, "off"),
  /** How long one tool call may take. */
  timeout: z._default(timeoutSeconds, 60),
});

const httpServerSchema = z.strictObject({
  type: z.optional(z.enum(["http", "streamable-http"])),
  url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }),
  /** Header values; `${VAR}` takes a value from the environment (e.g. "Bearer ${DOCS_TOKEN}"). */
  headers: z._default(
    z.record(z.string(), z.string(), { error: "expected a mapping of header: value" }),
    {},
  ),
  timeout: z._default(timeoutSeconds, 60),
});

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema], {
  error:
    'expected a stdio server ({command, args, env}) or an HTTP server ({url, headers}); "sse" servers are not supported',
});

export const mcpServersSchema = z.record(
  z.string().check(
    z.regex(MCP_SERVER_NAME, {
      error: "expected a server name of letters, digits, '-' and single '_'",
    }),
  ),
  mcpServerSchema,
  { error: "expected a mapping of server name to server settings" },
);

export type McpServersConfig = z.output<typeof mcpServersSchema>;
export type McpServersInput = z.input<typeof mcpServersSchema>;

/** A server ready to start: every `${VAR}` resolved from the environment. */
export type McpServerSpec =
  | {
      name: string;
      transport: "stdio";
      command: string;
      args: string[];
      /** Only what the config named: the rest of the server's environment is the shell's. */
      env: Record<string, string>;
      network: NetworkPolicy;
      timeoutMs: number;
    }
  | {
      name: string;
      transport: "http";
      url: string;
      headers: Record<string, string>;
      timeoutMs: number;
      /** How the server is reached; absent: global fetch. A repository's server gets a guarded one. */
      fetch?: FetchLike | undefined;
    };

export interface ResolvedMcpServers {
  servers: McpServerSpec[];
  /** Servers that cannot start (a variable they name is not set), reported like a failed start. */
  problems: Array<{ server: string; message: string }>;
  /** The values taken from the environment, to redact wherever text is shown. */
  secrets: string[];
}

/** The bot's own credentials: no config may hand them to a server it chose. */
const NEVER_PASSED = new Set([
  "PRIVATE_KEY",
  "WEBHOOK_SECRET",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "INPUT_GITHUB_TOKEN",
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  "REDIS_URL",
]);

/**
 * The model provider's credentials belong to whoever runs patchwright, not to
 * whoever can write a repository's config: only a config of the runner's own
 * (`--mcp-config`) may name them.
 */
const RUNNER_ONLY = new Set([...PROVIDER_CREDENTIAL_NAMES, "AWS_ACCESS_KEY_ID"]);

class MissingVariable extends Error {}

/**
 * The variables a repository's config may pass to its servers: only those
 * the runner lists in PATCHWRIGHT_MCP_ENV (comma-separated). Whoever can
 * write a repository's config must not be able to pick any variable of the
 * machine running patchwright and hand it to a server it chose.
 */
export const REPOSITORY_ENV_ALLOWLIST = "PATCHWRIGHT_MCP_ENV";

function repositoryAllowlist(env: Readonly<Record<string, string | undefined>>): Set<string> {
  return new Set(
    (env[REPOSITORY_ENV_ALLOWLIST] ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

function expand(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  used: string[],
  fromRepository: Set<string> | undefined,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    if (NEVER_PASSED.has(name)) {
      throw new MissingVariable(
        `${name} is the bot's own credential and is never passed to an MCP server`,
      );
    }
    if (fromRepository && RUNNER_ONLY.has(name)) {
      throw new MissingVariable(
        `${name} is the model provider's credential; a repository's config cannot pass it to an MCP server`,
      );
    }
    if (fromRepository && !fromRepository.has(name)) {
      throw new MissingVariable(
        `${name} is not in ${REPOSITORY_ENV_ALLOWLIST}, the variables a repository's config may pass to an MCP server`,
      );
    }
    const found = env[name];
    if (found === undefined || found === "") throw new MissingVariable(`${name} is not set`);
    used.push(found);
    return found;
  });
}

/**
 * Resolves each server's `${VAR}`s from `env`; a server whose variable is
 * missing or refused is a problem to report, not an error. `source`: whether
 * the config is the repository's (`.github/patchwright.yml`) or the runner's own.
 */
export function resolveMcpServers(
  config: McpServersConfig,
  env: Readonly<Record<string, string | undefined>>,
  source: "repository" | "runner",
): ResolvedMcpServers {
  const fromRepository = source === "repository" ? repositoryAllowlist(env) : undefined;
  const result: ResolvedMcpServers = { servers: [], problems: [], secrets: [] };
  for (const [name, server] of Object.entries(config)) {
    const used: string[] = [];
    try {
      if ("command" in server) {
        const pairs: Array<[string, string]> = Array.isArray(server.env)
          ? server.env.map((variable) => [variable, `\${${variable}}`])
          : Object.entries(server.env);
        result.servers.push({
          name,
          transport: "stdio",
          command: server.command,
          args: server.args,
          env: Object.fromEntries(
            pairs.map(([key, value]) => [key, expand(value, env, used, fromRepository)]),
          ),
          network: networkPolicy(server.network),
          timeoutMs: server.timeout * 1000,
        });
      } else {
        result.servers.push({
          name,
          transport: "http",
          url: server.url,
          headers: Object.fromEntries(
            Object.entries(server.headers).map(([key, value]) => [
              key,
              expand(value, env, used, fromRepository),
            ]),
          ),
          timeoutMs: server.timeout * 1000,
        });
      }
      result.secrets.push(...used);
    } catch (error) {
      if (!(error instanceof MissingVariable)) throw error;
      result.problems.push({ server: name, message: error.message });
    }
  }
  return result;
}

const mcpJsonSchema = z.strictObject({ mcpServers: mcpServersSchema });

/** Reads a `.mcp.json` file (`--mcp-config`); throws an Error naming the file and the bad field. */
export async function readMcpConfigFile(file: string): Promise<McpServersConfig> {
  let json: unknown;
  try {
    // A byte order mark (a Windows editor's) is no syntax error to the tools that write it.
    json = parseJsonText(await readFile(file, "utf8"));
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? `it is not JSON (${error.message})` : "it cannot be read";
    throw new Error(`--mcp-config ${file}: ${reason}`);
  }
  const parsed = mcpJsonSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`--mcp-config ${file}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data.mcpServers;
}
