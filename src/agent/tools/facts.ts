import type { ToolFacts } from "./define-tool.js";
import { defaultTools } from "./index.js";

/** Finds a tool's facts by name, for code that sees only events (the tracking comment). */
export type ToolFactsLookup = (name: string) => ToolFacts | undefined;

/** `mcp__<server>__<tool>`: what every MCP tool is called in the agent's registry. */
export function isMcpToolName(name: string): boolean {
  return /^mcp__.+__.+$/.test(name);
}

/**
 * The facts of the given tools (default: the built-in ones). An MCP tool
 * missing from the list is still known as external: its name says so.
 */
export function toolFactsLookup(tools: readonly ToolFacts[] = defaultTools()): ToolFactsLookup {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name) =>
    byName.get(name) ??
    (isMcpToolName(name)
      ? {
          name,
          kind: "external",
          pathFields: [],
          globFields: [],
          readOnly: false,
          concurrencySafe: false,
        }
      : undefined);
}
