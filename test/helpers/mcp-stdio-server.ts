import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * A tiny MCP server speaking the stdio transport (newline-delimited JSON-RPC)
 * with nothing but Node built-ins, so it runs inside the sandbox, which sees
 * the workspace and not this repository's node_modules. Its tools:
 * - list_tickets (read-only): the open tickets;
 * - close_ticket {id} (changes something): says it closed the ticket;
 * - show_env (read-only): the names of its environment variables, and TICKETS_TOKEN's value;
 * - read_host_file {path} (read-only): reads a path, to show what the sandbox hides;
 * - slow (read-only): never answers;
 * - broken (read-only): answers with an error result.
 */
export const TICKETS_SERVER_SOURCE = String.raw`
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const TOOLS = [
  { name: "list_tickets", description: "Lists open tickets", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
  { name: "close_ticket", description: "Closes a ticket", inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] } },
  { name: "show_env", description: "Shows the environment", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
  { name: "read_host_file", description: "Reads a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }, annotations: { readOnlyHint: true } },
  { name: "slow", description: "Never answers", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
  { name: "broken", description: "Always fails", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
];

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
const text = (value, isError = false) => ({ content: [{ type: "text", text: value }], isError });

function call(name, args) {
  switch (name) {
    case "list_tickets": return text("#7 crash on empty input\n#9 typo in README");
    case "close_ticket": return text("closed #" + args.id);
    case "show_env": return text(JSON.stringify({ names: Object.keys(process.env).sort(), token: process.env.TICKETS_TOKEN ?? null }));
    case "read_host_file":
      try { return text(readFileSync(args.path, "utf8")); } catch (error) { return text("cannot read: " + error.code, true); }
    case "broken": return text("the ticket database is locked", true);
    default: return undefined;
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tickets", version: "1.0.0" } } });
  } else if (message.method === "tools/list") {
    send({ id: message.id, result: { tools: TOOLS } });
  } else if (message.method === "tools/call") {
    if (message.params.name === "slow") return;
    const result = call(message.params.name, message.params.arguments ?? {});
    if (result) send({ id: message.id, result });
    else send({ id: message.id, error: { code: -32602, message: "unknown tool " + message.params.name } });
  } else if (message.method === "ping") {
    send({ id: message.id, result: {} });
  } else {
    send({ id: message.id, error: { code: -32601, message: "method not found" } });
  }
});
`;

/** Writes the server into `dir` (a workspace) and returns its file name relative to it. */
export async function writeTicketsServer(
  dir: string,
  name = "tickets-server.mjs",
): Promise<string> {
  await writeFile(join(dir, name), TICKETS_SERVER_SOURCE);
  return name;
}
