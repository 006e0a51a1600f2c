import { errorMessage } from "../error-message.js";
import type { ServiceLog } from "./service-log.js";

/**
 * The log of a process without Probot (`patchwright worker`): one line per
 * entry on stderr, JSON with LOG_FORMAT=json (as Probot's is), else words.
 */
export function createLineLog(
  out: { write(text: string): unknown },
  options: { json: boolean; clock?: { now(): number } },
): ServiceLog & { debug(fields: object, message: string): void } {
  const clock = options.clock ?? Date;
  const write = (level: string) => (fields: object, message: string) => {
    const entries = Object.entries(fields).map(([key, value]): [string, unknown] =>
      key === "err" ? [key, errorMessage(value)] : [key, value],
    );
    if (options.json) {
      const time = clock.now();
      out.write(
        `${JSON.stringify({ level, time, msg: message, ...Object.fromEntries(entries) })}\n`,
      );
      return;
    }
    const extra = entries.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(" ");
    out.write(`${level.toUpperCase()} ${message}${extra ? ` ${extra}` : ""}\n`);
  };
  return { debug: () => {}, info: write("info"), warn: write("warn"), error: write("error") };
}
