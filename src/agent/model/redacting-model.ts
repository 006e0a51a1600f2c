import { markInvisible } from "../../secrets/invisible.js";
import type { Redactor } from "../redact.js";
import type { Message, Model, ModelRequest, ToolSpec, UserBlock } from "./model.js";

/**
 * The last door before the model provider: every request's system prompt,
 * tool descriptions and user turns pass the secret detector, whatever built them (a task from
 * a thread, a CI log, release notes and API diffs, AGENTS.md, git log, a
 * compaction summary, tool results). Callers redact at the source too; this
 * catches what a caller forgot. Hidden characters in the prompt's own text
 * are shown as `[hidden: U+…]`; tool results keep theirs as the tool left
 * them (a file read must show the file as it is). The model's own turns go
 * back untouched: thinking blocks are signed.
 *
 * Each block is cleaned once: blocks are reused from turn to turn, so the
 * work per request is the new turn, not the whole conversation.
 */
export function redactingModel(model: Model, redact: Redactor): Model {
  const clean = requestCleaner(redact);
  const complete: Model["complete"] = (request: ModelRequest, onEvent) =>
    model.complete(clean(request), onEvent);
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    ...(model.spec === undefined ? {} : { spec: model.spec }),
    ...(model.price === undefined ? {} : { price: model.price }),
    complete,
  };
}

/**
 * What `redactingModel` sends for a request: a function of the request and
 * the redactor alone (the session's early first turn cleans its request
 * with it, to be compared with the loop's).
 */
export function requestCleaner(redact: Redactor): (request: ModelRequest) => ModelRequest {
  const blocks = new WeakMap<UserBlock, UserBlock>();
  const texts = new Map<string, string>();
  const cleanText = (text: string): string => {
    let clean = texts.get(text);
    if (clean === undefined) {
      clean = markInvisible(redact(text));
      texts.set(text, clean);
    }
    return clean;
  };
  const cleanBlock = (block: UserBlock): UserBlock => {
    let clean = blocks.get(block);
    if (!clean) {
      clean =
        block.type === "text"
          ? { ...block, text: markInvisible(redact(block.text)) }
          : { ...block, content: redact(block.content) };
      blocks.set(block, clean);
    }
    return clean;
  };
  const cleanMessage = (message: Message): Message =>
    message.role === "user" ? { ...message, content: message.content.map(cleanBlock) } : message;
  // An MCP server writes its tools' descriptions: data like any other it sends.
  const cleanTool = (tool: ToolSpec): ToolSpec => ({
    ...tool,
    description: cleanText(tool.description),
  });
  return (request) => ({
    ...request,
    system: request.system.map(cleanText),
    messages: request.messages.map(cleanMessage),
    tools: request.tools.map(cleanTool),
  });
}
