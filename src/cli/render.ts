import type { AgentEvent } from "../agent/events.js";
import { filePatchLines } from "../agent/file-diff.js";
import type { Usage } from "../agent/model/model.js";
import { plural } from "../github/markdown.js";
import type { Colors } from "./colors.js";

export interface Spinner {
  start(text: string): void;
  stop(): void;
}

export interface RenderTarget {
  write(text: string): void;
  colors: Colors;
  spinner: Spinner;
  /** Also print the end of each command's output. */
  verbose?: boolean;
}

const MAX_DIFF_LINES = 40;
const OUTPUT_TAIL_LINES = 10;

/**
 * Human-readable progress: streaming text, one line per tool call, edits as
 * coloured diffs, a spinner while the model thinks or a command runs, and
 * totals at the end.
 */
export function createHumanRenderer(out: RenderTarget): (event: AgentEvent) => void {
  const { colors: c } = out;
  let midLine = false;
  const line = (text: string) => {
    out.spinner.stop();
    out.write(`${midLine ? "\n" : ""}${text}\n`);
    midLine = false;
  };
  return (event) => {
    switch (event.type) {
      case "turn_start":
        out.spinner.start(`turn ${event.turn}: waiting for the model`);
        break;
      case "text_delta":
        out.spinner.stop();
        out.write(event.text);
        midLine = !event.text.endsWith("\n");
        break;
      case "tool_call":
        line(c.cyan(`› ${event.summary}`));
        // Commands can run for minutes: the status line shows one still going.
        if (event.name === "run_shell") out.spinner.start(event.summary);
        break;
      case "tool_result":
        out.spinner.stop();
        if (event.isError) line(c.red(`  ✗ ${firstLine(event.content)}`));
        else if (event.name === "run_shell") {
          line(c.dim(`  ${firstLine(event.content)}`));
          // The first line is the exit code; the output follows it.
          if (out.verbose) line(renderOutputTail(event.content.split("\n").slice(1).join("\n"), c));
        }
        break;
      case "file_change":
        line(renderDiff(event.path, event.before, event.after, c));
        break;
      case "retry":
        line(c.yellow(`  retrying in ${(event.delayMs / 1000).toFixed(1)}s: ${event.reason}`));
        break;
      case "compaction":
        line(
          c.dim(
            `  (conversation summarised at ${event.promptTokens.toLocaleString("en-US")} tokens)`,
          ),
        );
        break;
      case "stop":
        line(
          event.reason === "end_turn"
            ? c.green(`done after ${plural(event.turns, "turn")}`)
            : c.yellow(
                `stopped (${event.reason}) after ${plural(event.turns, "turn")}${event.error ? `: ${event.error}` : ""}`,
              ),
        );
        break;
      default:
        break;
    }
  };
}

export function renderDiff(
  path: string,
  before: Buffer | null,
  after: Buffer | null,
  c: Colors,
): string {
  const lines = filePatchLines(path, before, after);
  if (!lines) return c.bold(`  ${path} (binary)`);
  const shown = lines.slice(0, MAX_DIFF_LINES).map((l) => {
    if (l.startsWith("+++") || l.startsWith("---")) return c.bold(l);
    if (l.startsWith("+")) return c.green(l);
    if (l.startsWith("-")) return c.red(l);
    if (l.startsWith("@@")) return c.cyan(l);
    return c.dim(l);
  });
  if (lines.length > MAX_DIFF_LINES)
    shown.push(c.dim(`... ${plural(lines.length - MAX_DIFF_LINES, "more diff line")}`));
  return shown.join("\n");
}

/** The last lines of a command's output, indented and dimmed, for --verbose. */
export function renderOutputTail(output: string, c: Colors): string {
  const lines = output.trimEnd().split("\n");
  if (lines.length === 1 && lines[0] === "") return c.dim("    (no output)");
  const cut = lines.length - OUTPUT_TAIL_LINES;
  const shown = lines.slice(-OUTPUT_TAIL_LINES).map((l) => c.dim(`    ${clip(l)}`));
  if (cut > 0) shown.unshift(c.dim(`    … ${plural(cut, "earlier line")}`));
  return shown.join("\n");
}

export interface RunTotals {
  turns: number;
  usage: Usage;
  costUsd: number;
  durationMs: number;
  transcriptPath?: string | undefined;
}

export function renderTotals(totals: RunTotals): string {
  const u = totals.usage;
  const n = (value: number) => value.toLocaleString("en-US");
  return [
    `turns: ${totals.turns}`,
    `tokens: ${n(u.inputTokens)} in, ${n(u.outputTokens)} out, ${n(u.cacheReadTokens)} cache read, ${n(u.cacheWriteTokens)} cache write`,
    `cost: $${totals.costUsd.toFixed(4)}`,
    `time: ${(totals.durationMs / 1000).toFixed(1)}s`,
    ...(totals.transcriptPath ? [`transcript: ${totals.transcriptPath}`] : []),
  ].join("\n");
}

/** JSON lines for machines: file contents become sizes so lines stay small. */
export function toJsonLine(event: AgentEvent): string {
  if (event.type === "file_change") {
    const { before, after, ...rest } = event;
    return JSON.stringify({
      ...rest,
      beforeBytes: before?.length ?? null,
      afterBytes: after?.length ?? null,
    });
  }
  return JSON.stringify(event);
}

function firstLine(text: string): string {
  return clip(text.split("\n", 1)[0] ?? "");
}

function clip(line: string): string {
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
