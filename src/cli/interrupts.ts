import type { CliIo } from "./cli-io.js";
import type { Spinner } from "./render.js";

/**
 * Ctrl+C: the first press stops the run the way a limit does (the work so
 * far is kept, the totals and the transcript path are printed, exit 130); a
 * second press quits at once.
 */
export function watchInterrupts(
  io: Pick<CliIo, "onInterrupt" | "stderr" | "exit">,
  status: Spinner,
  controller: AbortController,
): { interrupted(): boolean; unsubscribe(): void } {
  let presses = 0;
  const unsubscribe = io.onInterrupt(() => {
    presses += 1;
    status.stop();
    if (presses > 1) {
      (io.exit ?? process.exit)(130);
      return;
    }
    io.stderr.write("\ninterrupted: stopping the run (press Ctrl+C again to quit at once)\n");
    controller.abort(new Error("interrupted"));
  });
  return { interrupted: () => presses > 0, unsubscribe };
}
