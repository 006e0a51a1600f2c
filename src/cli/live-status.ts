import { formatDuration } from "../github/markdown.js";
import type { CliStream } from "./cli-io.js";
import type { Spinner } from "./render.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 1000;
/** Off a terminal: how often a log hears that a long step still runs. */
const HEARTBEAT_MS = 30_000;
const CLEAR_LINE = "\r\u001b[2K";

/** For --json runs, which keep stderr as quiet as their stdout is regular. */
export const NO_STATUS: Spinner = { start() {}, stop() {} };

/**
 * One status line at the bottom of a terminal ("run_shell npm test · 12s"),
 * redrawn about once a second with the time taken so far, so a long command
 * visibly is still running. Anywhere but a terminal (a pipe, a CI log) it
 * writes no control sequences: a plain line every 30 s while a step runs
 * ("… still running: run_shell npm test · 1m"), so a log is never silent
 * for long, and nothing for steps shorter than that.
 *
 * Written here rather than with a spinner library: those decide on colour
 * and cursor codes from the process's stdout, not from the stream they draw
 * on, and install their own SIGINT handler that exits at once, before the
 * run can print its totals.
 */
export function createLiveStatus(stream: CliStream, clock: { now(): number }): Spinner {
  if (!stream.isTTY) return heartbeat(stream, clock);
  let timer: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  const draw = (text: string, started: number) => {
    const elapsed = clock.now() - started;
    const line = `${FRAMES[frame++ % FRAMES.length]} ${text}${elapsed >= TICK_MS ? ` · ${formatDuration(elapsed)}` : ""}`;
    stream.write(`${CLEAR_LINE}${fitWidth(line, stream.columns)}`);
  };
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    stream.write(CLEAR_LINE);
  };
  return {
    start(text) {
      stop();
      const started = clock.now();
      draw(text, started);
      timer = setInterval(() => draw(text, started), TICK_MS);
      // A status line never keeps the process alive.
      timer.unref();
    },
    stop,
  };
}

/** A line that wraps could not be cleared with one carriage return. */
function fitWidth(line: string, columns: number | undefined): string {
  if (!columns || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}

function heartbeat(stream: CliStream, clock: { now(): number }): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    start(text) {
      stop();
      const started = clock.now();
      timer = setInterval(() => {
        stream.write(`… still running: ${text} · ${formatDuration(clock.now() - started)}\n`);
      }, HEARTBEAT_MS);
      timer.unref();
    },
    stop,
  };
}
