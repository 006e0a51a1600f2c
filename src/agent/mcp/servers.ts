import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { errorMessage } from "../../error-message.js";
import type { NetworkPolicy } from "../../sandbox/network.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { AnyTool } from "../tools/define-tool.js";
import type { McpServerSpec } from "./config.js";
import { type McpCallResult, type McpToolInfo, toAgentTool } from "./mcp-tools.js";

export interface McpDeps {
  /** The workspace: stdio servers start in it, inside its sandbox. */
  root: string;
  /** The agent's shell environment (no credentials); a server adds only what its config names. */
  env: Record<string, string>;
  /** A sandbox of the workspace with the given network, like the agent's shell's. */
  sandboxFor(network: NetworkPolicy): Sandbox;
  /** How long a server may take to start and list its tools; default 30 s. */
  startTimeoutMs?: number | undefined;
}

export interface McpFailure {
  server: string;
  message: string;
}

/** The servers of one agent session, started together and stopped together. */
export interface McpSession {
  tools: AnyTool[];
  /** Servers that did not start; the session goes on without them. */
  failures: McpFailure[];
  /** Tools called (and answered), in the order first used. */
  used(): string[];
  close(): Promise<void>;
}

interface Started {
  tools: AnyTool[];
  close(): Promise<void>;
}

/**
 * Starts every server side by side. One that fails (a crash, a timeout, a
 * missing variable) is a failure to report, never the session's end.
 */
export async function startMcpServers(
  servers: readonly McpServerSpec[],
  deps: McpDeps,
  known: McpFailure[] = [],
): Promise<McpSession> {
  const used = new Set<string>();
  const failures = [...known];
  const settled = await Promise.all(
    servers.map((spec) =>
      startServer(spec, deps, (name) => used.add(name)).catch((error: unknown) => {
        failures.push({ server: spec.name, message: errorMessage(error) });
        return undefined;
      }),
    ),
  );
  const started = settled.filter((s): s is Started => s !== undefined);
  const tools: AnyTool[] = [];
  const names = new Set<string>();
  for (const tool of started.flatMap((s) => s.tools)) {
    // Two names that differ only in characters no model API accepts: the first one stays.
    if (!names.has(tool.name)) tools.push(tool);
    names.add(tool.name);
  }
  return {
    tools,
    failures,
    used: () => [...used],
    close: async () => {
      await Promise.all(started.map((s) => s.close().catch(() => {})));
    },
  };
}

async function startServer(
  spec: McpServerSpec,
  deps: McpDeps,
  onUsed: (name: string) => void,
): Promise<Started> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "patchwright", version: "1" }, { capabilities: {} });
  const opened = await openTransport(spec, deps);
  const timeout = deps.startTimeoutMs ?? 30_000;
  const close = async () => {
    await client.close().catch(() => {});
    await opened.close();
  };
  try {
    await withTimeout(client.connect(opened.transport, { timeout }), timeout, spec.name);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    const call = async (tool: string, args: Record<string, unknown>, signal: AbortSignal) =>
      (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: spec.timeoutMs,
        signal,
      })) as McpCallResult;
    return {
      tools: tools.map((info) => toAgentTool(spec.name, info, timedCall(call, spec), onUsed)),
      close,
    };
  } catch (error) {
    await close();
    const said = opened.stderr();
    throw new Error(`${errorMessage(error)}${said ? `; it said: ${said}` : ""}`);
  }
}

/** A call that ran out of time says so in words the model can act on. */
function timedCall(
  call: (
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<McpCallResult>,
  spec: McpServerSpec,
) {
  return async (tool: string, args: Record<string, unknown>, signal: AbortSignal) => {
    try {
      return await call(tool, args, signal);
    } catch (error) {
      const message = errorMessage(error);
      if (/timed out|timeout/i.test(message)) {
        throw new Error(
          `no answer from MCP server "${spec.name}" within ${spec.timeoutMs / 1000}s`,
        );
      }
      throw error;
    }
  };
}

interface OpenedTransport {
  transport: Transport;
  /** The last of what a stdio server wrote to stderr, for a failed start. */
  stderr(): string;
  close(): Promise<void>;
}

async function openTransport(spec: McpServerSpec, deps: McpDeps): Promise<OpenedTransport> {
  if (spec.transport === "http") {
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return {
      transport: new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: spec.headers },
        ...(spec.fetch ? { fetch: spec.fetch } : {}),
      }),
      stderr: () => "",
      close: async () => {},
    };
  }
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const sandbox = deps.sandboxFor(spec.network);
  try {
    const wrapped = await sandbox.wrap({
      argv: [spec.command, ...spec.args],
      cwd: deps.root,
      env: { ...deps.env, ...spec.env },
    });
    const transport = new StdioClientTransport({
      command: wrapped.file,
      args: wrapped.args,
      env: wrapped.env,
      cwd: deps.root,
      stderr: "pipe",
    });
    let tail = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-400);
    });
    return {
      transport,
      stderr: () => tail.trim(),
      close: () => sandbox.close(),
    };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, server: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`MCP server "${server}" did not start within ${ms / 1000}s`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
