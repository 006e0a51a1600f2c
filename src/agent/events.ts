import type { Usage } from "./model/model.js";

/** Why a run ended. Limits end a run cleanly; the work done so far is kept. */
export type AgentStopReason =
  | "end_turn"
  | "max_turns"
  | "max_cost"
  | "timeout"
  | "aborted"
  | "refusal"
  | "error";

/** What a run reports as it goes; callers render or log these. */
export type AgentEvent =
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; turn: number; text: string }
  | { type: "text"; turn: number; text: string }
  | { type: "retry"; turn: number; attempt: number; delayMs: number; reason: string }
  | { type: "tool_call"; turn: number; id: string; name: string; input: unknown; summary: string }
  | {
      type: "tool_result";
      turn: number;
      id: string;
      name: string;
      content: string;
      isError: boolean;
      durationMs: number;
    }
  | {
      type: "file_change";
      turn: number;
      toolCallId: string;
      path: string;
      before: Buffer | null;
      after: Buffer | null;
    }
  | {
      type: "usage";
      turn: number;
      usage: Usage;
      costUsd: number;
      totalUsage: Usage;
      totalCostUsd: number;
    }
  | { type: "compaction"; turn: number; promptTokens: number; summaryChars: number }
  | { type: "stop"; reason: AgentStopReason; turns: number; error?: string };

export type AgentEventListener = (event: AgentEvent) => void;
