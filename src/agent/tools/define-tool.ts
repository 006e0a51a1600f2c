import { z } from "zod";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { ToolSpec } from "../model.js";

/** A change a tool made to one file; `null` content means "did not exist". */
export interface ChangeRecord {
  /** Path relative to the workspace root, with forward slashes. */
  path: string;
  before: Buffer | null;
  after: Buffer | null;
}

/** What a tool knows about the file when it was last read (for edit checks). */
/** What a file looked like when the model last saw it; any difference means it changed. */
export interface ReadStamp {
  mtimeMs: number;
  /** A command can set mtime back; it cannot set ctime back. */
  ctimeMs: number;
  ino: number;
  size: number;
}

/**
 * Everything a tool may touch. Tools get their world from here, never from
 * globals: the workspace root, the scrubbed shell environment, the abort
 * signal and the hooks that record file changes.
 */
export interface ToolContext {
  /** Real path (symlinks resolved) of the workspace root. */
  root: string;
  signal: AbortSignal;
  /** Scrubbed environment for child processes: no tokens, no keys. */
  env: Record<string, string>;
  /** Where commands run (run_shell): the workspace's sandbox. */
  sandbox: Sandbox;
  /** Absolute path -> stamp of the last read_file/write_file/edit_file. */
  reads: Map<string, ReadStamp>;
  /** Records a change the tool made itself (write_file, edit_file). */
  recordChange(change: ChangeRecord): void;
  /** Runs `fn` and records every file it changed in the workspace (run_shell). */
  trackChanges<T>(fn: () => Promise<T>): Promise<T>;
}

/** Thrown by a tool for a failure the model should read and act on. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

export interface Tool<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  input: Schema;
  /** Fail-closed flags: a tool is assumed to write and to need running alone. */
  readOnly: boolean;
  concurrencySafe: boolean;
  /** One line for progress displays, e.g. `edit_file src/a.ts`. */
  summarize(input: z.infer<Schema>): string;
  run(input: z.infer<Schema>, ctx: ToolContext): Promise<string>;
}

/** A tool of any input type, as registries hold them; input is validated before `run`. */
// biome-ignore lint/suspicious/noExplicitAny: tools are stored together whatever their input.
export type AnyTool = Tool<any>;

export interface ToolOptions<Schema extends z.ZodObject> {
  name: string;
  description: string;
  input: Schema;
  readOnly?: boolean;
  concurrencySafe?: boolean;
  summarize(input: z.infer<Schema>): string;
  run(input: z.infer<Schema>, ctx: ToolContext): Promise<string>;
}

export function defineTool<Schema extends z.ZodObject>(options: ToolOptions<Schema>): Tool<Schema> {
  return {
    readOnly: false,
    concurrencySafe: false,
    ...options,
  };
}

/** The tool as the model sees it: name, description and JSON Schema input. */
export function toToolSpec(tool: AnyTool): ToolSpec {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input) as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...schema, type: "object" },
  };
}

/** A policy verdict on one tool call; the reason is shown to the model. */
export type PolicyDecision = { allow: true } | { allow: false; reason: string };

/** A tool call as the policy sees it (input already validated). */
export interface PolicyCall {
  tool: string;
  input: Record<string, unknown>;
}

/** Checks a call before it runs; injected so tools never know the rules. */
/** Synchronous, or async while what it needs is still loading (see the agent session). */
export type PolicyCheck = (call: PolicyCall) => PolicyDecision | Promise<PolicyDecision>;
