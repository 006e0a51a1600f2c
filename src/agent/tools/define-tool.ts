import { loadOnFirstCall } from "../../load-on-first-call.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import * as z from "../../zod.js";
import type { ToolSpec } from "../model/model.js";

/** A change a tool made to one file; `null` content means "did not exist". */
export interface ChangeRecord {
  /** Path relative to the workspace root, with forward slashes. */
  path: string;
  before: Buffer | null;
  after: Buffer | null;
  /** Git's file modes on both sides when only they, or they too, changed (a `chmod +x`). */
  modes?: { before: string; after: string } | undefined;
}

/**
 * What a file held when the model last saw it (read it, or wrote it itself).
 * Content and mode, not timestamps: a `touch` changes nothing the model
 * relies on, and a same-size rewrite within a clock tick still differs.
 */
export interface ReadStamp {
  /** sha256 of the bytes. */
  hash: string;
  /** Permission bits (and file type) from stat. */
  mode: number;
  /** Set when a run_shell command changed the file after that: it must be read again. */
  shellChange?: ShellChange | undefined;
  /** Set when the model saw only some lines of this content (read_file offset/limit): which. */
  partial?: { total: number; seen: Array<[number, number]> } | undefined;
}

/** What a run_shell command did to a file the model had seen. */
export interface ShellChange {
  command: string;
  kind: "content" | "deleted" | "created" | "mode";
  /** For "mode": git's modes, e.g. 100644 -> 100755. */
  modes?: { before: string; after: string } | undefined;
  /** For "deleted": the file the same command created with this one's content (a move). */
  movedTo?: string | undefined;
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
  /**
   * Runs `fn`, records every file it changed in the workspace (run_shell)
   * and returns those changes (none where nothing tracks them).
   */
  trackChanges<T>(fn: () => Promise<T>): Promise<{ value: T; changes: ChangeRecord[] }>;
}

/** Thrown by a tool for a failure the model should read and act on. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * What a tool does, as the policy, the presets, the tracking comment and the
 * prompt see it: read and search never change anything, write changes files
 * named by its path fields, shell runs commands, external reaches outside the
 * workspace (an MCP server), report hands the job part of its answer (a
 * review's inline comment) and changes nothing.
 */
export type ToolKind = "read" | "search" | "write" | "shell" | "external" | "report";

/** The facts about a tool that everything around it derives from, declared by the tool itself. */
export interface ToolFacts {
  name: string;
  kind: ToolKind;
  /** Input fields holding a workspace path, checked by the policy; the first one is the tool's subject. */
  pathFields: readonly string[];
  /** Input fields holding a glob, which must not reach outside the workspace either. */
  globFields: readonly string[];
  /** Changes nothing anywhere: read and search tools, and external tools annotated read-only. */
  readOnly: boolean;
  /** May run side by side with other concurrency-safe read-only calls. */
  concurrencySafe: boolean;
}

/** A tool's input as JSON Schema: always an object. */
export type InputJsonSchema = { type: "object"; [key: string]: unknown };

export interface Tool<Schema extends z.ZodMiniObject = z.ZodMiniObject> extends ToolFacts {
  description: string;
  input: Schema;
  /**
   * The JSON Schema shown to the model when the tool brings its own (an MCP
   * server's, or a built-in tool's made ahead: input-schemas.ts); else from `input`.
   */
  inputJsonSchema?: InputJsonSchema | undefined;
  /** One line for progress displays, e.g. `edit_file src/a.ts`. */
  summarize(input: z.infer<Schema>): string;
  run(input: z.infer<Schema>, ctx: ToolContext): Promise<string>;
}

/** A tool of any input type, as registries hold them; input is validated before `run`. */
// biome-ignore lint/suspicious/noExplicitAny: tools are stored together whatever their input.
export type AnyTool = Tool<any>;

export interface ToolOptions<Schema extends z.ZodMiniObject> {
  name: string;
  description: string;
  /** Default "external": a tool that says nothing about itself gets no preset's trust. */
  kind?: ToolKind;
  input: Schema;
  inputJsonSchema?: InputJsonSchema | undefined;
  pathFields?: readonly string[];
  globFields?: readonly string[];
  /** Only external tools choose: read, search and report are read-only, write and shell never are. */
  readOnly?: boolean;
  concurrencySafe?: boolean;
  summarize(input: z.infer<Schema>): string;
  run(input: z.infer<Schema>, ctx: ToolContext): Promise<string>;
}

/**
 * Fail-closed defaults: no path fields means the policy has no path to
 * allow, and a tool runs alone unless it says otherwise. A declared field
 * that is not in the input schema is a bug caught here, at definition.
 */
export function defineTool<Schema extends z.ZodMiniObject>(
  options: ToolOptions<Schema>,
): Tool<Schema> {
  const pathFields = options.pathFields ?? [];
  const globFields = options.globFields ?? [];
  for (const field of [...pathFields, ...globFields]) {
    if (!(field in options.input.shape)) {
      throw new Error(
        `tool "${options.name}" declares the field "${field}" its input does not have`,
      );
    }
  }
  const kind = options.kind ?? "external";
  const readOnly =
    kind === "read" || kind === "search" || kind === "report"
      ? true
      : kind === "external" && options.readOnly === true;
  return {
    ...options,
    kind,
    pathFields,
    globFields,
    readOnly,
    concurrencySafe: readOnly && options.concurrencySafe === true,
  };
}

/** What a tool does with a validated input. */
export type ToolRun<Input> = (input: Input, ctx: ToolContext) => Promise<string>;

/**
 * A tool's `run` kept in a module of its own and loaded at the tool's first
 * call. The model sees a tool by its declaration (name, description, input
 * schema, facts), and the first model request needs nothing more: the
 * built-in tools' code (edit planning, grep's search, the read guard, the
 * shell's process handling) loaded before it on every Action run and
 * cost ~10 ms of a warm start on the 2-core VM (the loading, and a failed
 * load, as load-on-first-call.ts has them).
 */
export function runOnFirstCall<Input>(load: () => Promise<ToolRun<Input>>): ToolRun<Input> {
  return loadOnFirstCall(load);
}

/**
 * A tool's spec, built once per tool and process: zod's JSON Schema
 * conversion of the six built-in tools took ~13 ms of each session's start
 * (on the 2-core VM), on the way to its first model request, and the App
 * and the CLI's repeated jobs start many sessions. The built-in tools now
 * bring theirs, converted ahead (input-schemas.ts): the conversion still
 * took 4-6 ms of the Action's first request on Node 24, most of it
 * compiling zod's converter. Requests copy the specs they mark for caching
 * (model/request-body.ts); nothing writes to these.
 */
const specs = new WeakMap<AnyTool, ToolSpec>();

/** The tool as the model sees it: name, description and JSON Schema input. */
export function toToolSpec(tool: AnyTool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    spec = buildToolSpec(tool);
    specs.set(tool, spec);
  }
  return spec;
}

function buildToolSpec(tool: AnyTool): ToolSpec {
  const input_schema = tool.inputJsonSchema ?? inputJsonSchemaOf(tool.input);
  return { name: tool.name, description: tool.description, input_schema };
}

/** An input schema as the model is shown it: zod's JSON Schema, without its `$schema`. */
export function inputJsonSchemaOf(input: z.ZodMiniObject): InputJsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(input) as Record<string, unknown>;
  return { ...schema, type: "object" };
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
