import * as z from "../../zod.js";
import { type AnyTool, defineTool, ToolError } from "../tools/define-tool.js";

/** What we read of a server's tool listing (structural: the SDK's types fit). */
export interface McpToolInfo {
  name: string;
  description?: string | undefined;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean | undefined; title?: string | undefined } | undefined;
}

/** What we read of a tool call's answer. */
export interface McpCallResult {
  content?: Array<{
    type: string;
    text?: string;
    mimeType?: string;
    resource?: { uri?: string; text?: string };
  }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** Calls one of the server's tools by its own name, within the call timeout. */
export type McpCall = (
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<McpCallResult>;

/** Model APIs take tool names of at most 64 characters of [A-Za-z0-9_-]. */
const MAX_NAME = 64;

/** `mcp__<server>__<tool>`, the tool's own name made safe for every provider. */
export function mcpToolName(server: string, tool: string): string {
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, "_");
  return `mcp__${server}__${safe}`.slice(0, MAX_NAME);
}

/**
 * A server's tool as one of the agent's tools. Its facts come from the
 * server: external, read-only only when annotated so, no workspace paths.
 * Input is checked by the server against its own schema (shown to the model
 * as it is); an error answer comes back to the model as an error result.
 */
export function toAgentTool(
  server: string,
  info: McpToolInfo,
  call: McpCall,
  onUsed: (name: string) => void,
): AnyTool {
  const name = mcpToolName(server, info.name);
  const readOnly = info.annotations?.readOnlyHint === true;
  return defineTool({
    name,
    kind: "external",
    readOnly,
    concurrencySafe: readOnly,
    description: `${info.description?.trim() || info.annotations?.title || info.name} (MCP server "${server}")`,
    input: z.looseObject({}),
    inputJsonSchema: { ...info.inputSchema, type: "object" },
    summarize: (input) => `${name} ${compact(input)}`,
    async run(input, ctx) {
      const result = await call(info.name, input, ctx.signal);
      onUsed(name);
      const text = formatResult(result);
      if (result.isError) throw new ToolError(text || `${name} reported an error without details`);
      return text;
    },
  });
}

function compact(input: Record<string, unknown>): string {
  const json = JSON.stringify(input);
  return json.length > 80 ? `${json.slice(0, 80)}...` : json;
}

/** Text as text; what the model cannot read here is named, not dropped silently. */
function formatResult(result: McpCallResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type === "text" && typeof item.text === "string") parts.push(item.text);
    else if (item.type === "resource" && typeof item.resource?.text === "string")
      parts.push(item.resource.text);
    else if (item.type === "resource" || item.type === "resource_link")
      parts.push(`[resource ${item.resource?.uri ?? ""}]`.trim());
    else parts.push(`[${item.type}${item.mimeType ? ` ${item.mimeType}` : ""} not shown]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return parts.join("\n");
}
