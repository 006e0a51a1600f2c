import type { IncomingMessage, ServerResponse } from "node:http";
import type { JobSummary, JobsView, ViewEvent } from "../service/jobs-view/types.js";
import { type Html, htmlText } from "./html.js";
import { renderEvent } from "./render/event.js";
import { isFinished } from "./render/job.js";

/**
 * A job's transcript as server-sent events, from `from` on: each stored line
 * as a "line" event (the same markup as the page), a fresh "summary" when
 * the state, cost or links may have moved, and "end" once the job is
 * finished (the page's htmx-ext-sse closes on it). Each event's id is the
 * next index, so the browser's own reconnection (Last-Event-ID) resumes
 * where it stopped. A live event that arrives in order is sent as it is;
 * anything else (a gap, or events that came while the store was read) is
 * read again from the store, so no line is lost or sent twice.
 */

export interface StreamOptions {
  view: JobsView;
  id: string;
  from: number;
  summary: (job: JobSummary) => Html;
  heartbeatMs?: number;
}

/** Events that change what the summary shows. */
const MOVES_SUMMARY = new Set<ViewEvent["type"]>([
  "state",
  "usage",
  "report",
  "pushed",
  "checkpoint",
]);

function frame(event: string, data: string, id?: number): string {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}`);
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\n${lines.join("\n")}\n\n`;
}

export function startingIndex(req: IncomingMessage, from: string | null): number {
  const last = req.headers["last-event-id"];
  for (const candidate of [typeof last === "string" ? last : undefined, from ?? undefined]) {
    if (candidate !== undefined && /^\d{1,9}$/.test(candidate)) return Number(candidate);
  }
  return 0;
}

export async function streamJob(
  req: IncomingMessage,
  res: ServerResponse,
  options: StreamOptions,
): Promise<void> {
  const { view, id } = options;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
    connection: "keep-alive",
  });
  res.flushHeaders();
  let next = options.from;
  let closed = false;
  let pumping = false;
  let dirty = false;
  const pending: Array<{ event: ViewEvent; index: number }> = [];

  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    res.end();
  };

  const sendSummary = async (): Promise<boolean> => {
    const job = await view.get(id);
    if (!job || closed) return true;
    res.write(frame("summary", htmlText(options.summary(job))));
    if (isFinished(job)) {
      res.write(frame("end", "finished"));
      close();
      return true;
    }
    return false;
  };

  const send = (events: ViewEvent[], start: number): boolean => {
    let moved = false;
    events.forEach((event, offset) => {
      const index = start + offset;
      res.write(frame("line", htmlText(renderEvent(event, index)), index + 1));
      if (MOVES_SUMMARY.has(event.type)) moved = true;
    });
    return moved;
  };

  // One at a time: what arrives while the store is read waits in `pending`.
  const pump = async () => {
    if (pumping) {
      dirty = true;
      return;
    }
    pumping = true;
    try {
      do {
        dirty = false;
        let moved = false;
        while (pending.length > 0 && pending[0] && pending[0].index <= next && !closed) {
          const item = pending.shift();
          if (!item || item.index < next) continue;
          moved = send([item.event], item.index) || moved;
          next = item.index + 1;
        }
        if (pending.length > 0 && !closed) {
          // A gap: the store has what the listener skipped.
          pending.length = 0;
          const stored = await view.events(id, next);
          moved = send(stored.events, next) || moved;
          next = stored.next;
        }
        if (moved && !closed && (await sendSummary())) return;
      } while (dirty && !closed);
    } catch {
      close();
    } finally {
      pumping = false;
    }
  };

  const unsubscribe = view.subscribe(id, (event, index) => {
    if (closed) return;
    pending.push({ event, index });
    void pump();
  });
  const heartbeat = setInterval(() => {
    if (!closed) res.write(": keep-alive\n\n");
  }, options.heartbeatMs ?? 15_000);
  req.on("close", close);

  // What is stored already, then whatever the listener queued meanwhile.
  pumping = true;
  try {
    const stored = await view.events(id, next);
    send(stored.events, next);
    next = stored.next;
    if (await sendSummary()) return;
  } catch {
    close();
    return;
  } finally {
    pumping = false;
  }
  await pump();
}
