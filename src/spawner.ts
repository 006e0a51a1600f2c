/**
 * Short-lived programs (git, above all) started by a small helper process
 * rather than by this one. On Linux, Node starts a child with a plain
 * fork(): the kernel copies this process's page tables, and this process
 * then takes a fault on each page it writes until the child has exec'ed. The
 * cost grows with this process's memory and is paid on its one JS thread:
 * measured on a 2-core VM, one `git rev-parse` from a 54 MB process cost its
 * thread 5 ms of CPU and took 10 ms; from a 206 MB one, 10 ms and 19 ms.
 * Through the helper (a bare Node of about 40 MB) the caller's part is an
 * IPC message, about 0.3 ms, and the round trip 12 ms at 206 MB.
 *
 * The helper starts on the first run and serves from its first "ready";
 * runs before that, and every run once it is gone, start here as before,
 * so a helper that cannot start costs nothing but the try. It holds no
 * state but the processes it runs, is given no environment of its own (each
 * run brings the exact one its program gets), ignores the signals that stop
 * this process (which may still need git as it stops), and exits when this
 * process does (its IPC channel closes). It never keeps this process alive
 * while idle.
 */

import { runDirectly, streamDirectly } from "./spawner/direct.js";
import { type Helper, startHelper } from "./spawner/helper-client.js";
import type { GroupRun, GroupRunOptions, StreamEvents, StreamedRun } from "./spawner/types.js";

export { runDirectly, streamDirectly } from "./spawner/direct.js";
export type {
  GroupRun,
  GroupRunOptions,
  GroupRunResult,
  StreamEvents,
  StreamedRun,
} from "./spawner/types.js";

/**
 * Runs a program in its own process group with piped stdio, and collects
 * its output: through the helper when it is up, else directly.
 */
export function runInGroup(file: string, args: string[], options: GroupRunOptions): GroupRun {
  const helper = readyHelper();
  return helper ? helper.run(file, args, options) : runDirectly(file, args, options);
}

let helperWanted = true;

/** Whether runs may go through the helper (on by default); for measuring one way against the other. */
export function useSpawnHelper(wanted: boolean): void {
  helperWanted = wanted;
}

/**
 * Runs a program in its own process group, no stdin, its output streamed
 * to `events` as it comes (a shell command's live progress): through the
 * helper when it is up, else directly. Its process group is this process's
 * to signal either way.
 */
export function streamInGroup(
  file: string,
  args: string[],
  options: Omit<GroupRunOptions, "input">,
  events: StreamEvents,
): StreamedRun {
  const helper = readyHelper();
  return helper
    ? helper.stream(file, args, options, events)
    : streamDirectly(file, args, options, events);
}

/** The helper, started on first use; undefined once it failed or exited. */
let helper: Helper | undefined | null = null;

/** The helper when runs may use it and it serves (it starts with the first ask). */
function readyHelper(): Helper | undefined {
  if (!helperWanted) return undefined;
  if (helper === null)
    helper = startHelper((gone) => {
      if (helper === gone) helper = undefined;
    });
  return helper?.ready ? helper : undefined;
}
