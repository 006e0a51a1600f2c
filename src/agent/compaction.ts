import type { AssistantBlock, Message, Model, ModelResponse, UserBlock } from "./model/model.js";

/** Compaction starts when a request's prompt passes this share of the context window. */
export const COMPACTION_THRESHOLD = 0.85;

const SUMMARY_SYSTEM = [
  "You write a working summary of a coding agent's session so the agent can continue after its",
  "earlier conversation is dropped. Keep: the task as given, decisions made and why, every file",
  "path read or changed and what changed, commands run and their outcome (especially failing",
  "tests and error messages), what is done and what remains. Leave out pleasantries and full file",
  "contents. Write plain text, at most about 800 words.",
].join(" ");

export function needsCompaction(promptTokens: number, contextWindow: number): boolean {
  return promptTokens > contextWindow * COMPACTION_THRESHOLD;
}

/**
 * Replaces the older conversation with a summary. The first user message (the
 * task) is kept word for word, the summary is appended to it, and the latest
 * exchange (the last assistant turn with its tool results) is kept unmodified
 * so tool_use/tool_result pairs and thinking signatures stay valid.
 */
export async function compactConversation(
  model: Model,
  messages: Message[],
  signal: AbortSignal,
): Promise<{ messages: Message[]; response: ModelResponse; summary: string } | null> {
  const first = messages[0];
  if (first?.role !== "user" || messages.length < 4) return null;
  const tail = messages.slice(-2);
  const middle = messages.slice(1, -2);
  if (middle.length === 0) return null;

  const response = await model.complete({
    system: [SUMMARY_SYSTEM],
    messages: [
      {
        role: "user",
        content: [
          {
            type: "text",
            text: `Summarise this session.\n\n<session>\n${renderForSummary([first, ...middle])}\n</session>`,
          },
        ],
      },
    ],
    tools: [],
    maxTokens: 4096,
    signal,
  });
  const summary = response.content
    .filter((b): b is Extract<AssistantBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n")
    .trim();

  const task: UserBlock[] = [
    ...first.content,
    {
      type: "text",
      text: `<summary-of-earlier-work>\nThe earlier part of this session was summarised to save context:\n${summary}\n</summary-of-earlier-work>`,
    },
  ];
  return { messages: [{ role: "user", content: task }, ...tail], response, summary };
}

const MAX_BLOCK_CHARS = 4_000;

/** Plain-text rendering of a conversation: tool calls and results kept short. */
export function renderForSummary(messages: Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          lines.push(`[${message.role}] ${clip(block.text)}`);
          break;
        case "tool_use":
          lines.push(`[tool call ${block.name}] ${clip(JSON.stringify(block.input))}`);
          break;
        case "tool_result":
          lines.push(`[tool result${block.is_error ? " (error)" : ""}] ${clip(block.content)}`);
          break;
        default:
          // Thinking is private reasoning; the summary works from what was said and done.
          break;
      }
    }
  }
  return lines.join("\n");
}

function clip(text: string): string {
  if (text.length <= MAX_BLOCK_CHARS) return text;
  const half = MAX_BLOCK_CHARS / 2;
  return `${text.slice(0, half)} [...] ${text.slice(-half)}`;
}
