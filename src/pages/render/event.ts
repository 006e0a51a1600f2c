import type { ViewEvent } from "../../service/jobs-view/types.js";
import { type Html, html } from "../html.js";
import { cost, count } from "./format.js";

/**
 * One line of the transcript, as stored or as it arrives by SSE: the same
 * markup either way, so a replayed job reads like a live one. Every text
 * from the job (the model's words, a tool's input and output, the report's
 * markdown) is shown as text: the report is preformatted, never rendered.
 */
export function renderEvent(event: ViewEvent, index: number): Html {
  const at = new Date(event.at).toISOString().slice(11, 19);
  const time = html`<time class="meta" datetime="${new Date(event.at).toISOString()}">${at}</time>`;
  const item = (cls: string, body: Html) =>
    html`<li id="ev-${index}" class="ev ev-${cls}">${time} ${body}</li>`;
  switch (event.type) {
    case "state":
      return item(
        "state",
        html`<span class="label">State: ${event.state}</span>${event.by ? ` by ${event.by}` : ""}${
          event.message ? html` <span class="meta">${event.message}</span>` : ""
        }`,
      );
    case "step":
      return item(
        "step",
        html`<span class="label">Step</span>${event.text}${event.note ? html` <span class="meta">${event.note}</span>` : ""}`,
      );
    case "warning":
      return item("warning", html`<span class="label">Warning</span>${event.text}`);
    case "text":
      return item(
        "text",
        html`<span class="label">Agent</span><div class="text">${event.text}</div>`,
      );
    case "tool_call":
      return item(
        "tool_call",
        html`<span class="label">Tool call: ${event.name}</span><span class="meta">turn ${event.turn}</span><pre>${event.input}</pre>`,
      );
    case "tool_result":
      return html`<li id="ev-${index}" class="ev ev-tool_result${event.isError ? " error" : ""}">${time} <span class="label">${event.isError ? "Tool error" : "Result"}: ${event.name}</span><pre>${tail(event.tail)}</pre></li>`;
    case "denied":
      return item("denied", html`<span class="label">Denied: ${event.name}</span>${event.reason}`);
    case "usage":
      return item(
        "usage",
        html`<span class="meta">Turn ${event.turn}: ${cost(event.costUsd)} &middot; ${count(event.inputTokens)} in, ${count(event.outputTokens)} out</span>`,
      );
    case "checkpoint":
      return item(
        "checkpoint",
        html`<span class="label">Checkpoint</span><code>${event.sha.slice(0, 12)}</code>`,
      );
    case "pushed":
      return item("pushed", html`<span class="label">Pushed</span><code>${event.branch}</code>`);
    case "report":
      return item(
        "report",
        html`<h2>Final report (${event.outcome})</h2><pre class="report">${event.markdown}</pre>`,
      );
  }
}

/** A diff's added and removed lines marked, still as text. */
function tail(text: string): Html {
  const lines = text.split("\n");
  const isDiff = lines.some((line) => line.startsWith("@@")) || lines[0]?.startsWith("--- ");
  if (!isDiff) return html`${text}`;
  return html`${lines.map((line) => {
    if (line.startsWith("+") && !line.startsWith("+++"))
      return html`<span class="add">${line}</span>`;
    if (line.startsWith("-") && !line.startsWith("---"))
      return html`<span class="del">${line}</span>`;
    return html`${line}\n`;
  })}`;
}
