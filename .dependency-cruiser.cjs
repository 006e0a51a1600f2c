/**
 * The boundaries of src/, checked by `npm run lint` and by
 * test/boundaries.test.ts: no import cycles, and the rooms table, where a
 * room imports only the rooms below it. The order, lowest first:
 *
 *   edit-distance.ts, error-message.ts   root utilities
 *   secrets                              what a secret looks like
 *   requests, git, sandbox, queue        the request model; git; the sandbox; the job queues
 *   github                               the GitHub API and what is written there
 *   config                               .github/patchwright.yml
 *   agent                                the model loop, its tools and policy
 *   kernel                               what every job kind uses (worksite, push, commands)
 *   report                               what a job did, rendered
 *   change                               the change pipeline (steps, checkpoints, resume)
 *   deps                                 dependency bumps
 *   thread                               requests in a thread: admit, kinds, reports
 *   service                              a worker: queue, handlers, start-up, shutdown
 *   app, action, cli (+ cli.ts)          entry rooms: nothing imports them
 *
 * The queue is generic: it knows jobs, not what they do, so it imports no
 * domain room. A new folder under src/ needs a row here (rule
 * `room-unknown`), so no code lives outside the table.
 */

/** Room → the rooms it may import (its own is always allowed). */
const ROOT = ["edit-distance", "error-message"];
const rooms = {
  "edit-distance": [],
  "error-message": [],
  secrets: [...ROOT],
  requests: [...ROOT, "secrets"],
  git: [...ROOT, "secrets"],
  sandbox: [...ROOT, "secrets"],
  queue: [...ROOT],
  github: [...ROOT, "secrets", "requests", "git", "sandbox"],
  config: [...ROOT, "secrets", "requests", "git", "sandbox", "github"],
};
const MIDDLE = [...ROOT, "secrets", "requests", "git", "sandbox", "queue", "github", "config"];
rooms.agent = [...MIDDLE];
rooms.kernel = [...rooms.agent, "agent"];
rooms.report = [...rooms.kernel, "kernel"];
rooms.change = [...rooms.report, "report"];
rooms.deps = [...rooms.change, "change"];
rooms.thread = [...rooms.deps, "deps"];
rooms.service = [...rooms.thread, "thread"];
for (const entry of ["app", "action", "cli"]) rooms[entry] = [...rooms.service, "service"];

/** A room is a folder under src/ or a file at its root (cli is both: cli.ts and cli/). */
const inRooms = (names) => `^src/(${names.join("|")})(/|\\.ts$)`;

const roomRules = Object.entries(rooms).map(([room, allowed]) => ({
  name: `room-${room}`,
  comment: allowed.length
    ? `${room} imports only lower rooms: ${allowed.join(", ")}`
    : `${room} is a root utility: it imports nothing else in src`,
  severity: "error",
  from: { path: inRooms([room]) },
  to: { path: "^src/", pathNot: inRooms([room, ...allowed]) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle: move the shared type or function to the lowest file that uses it",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "room-unknown",
      comment:
        "this file is in no room: add its folder to the rooms table in .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/", pathNot: inRooms(Object.keys(rooms)) },
      to: {},
    },
    ...roomRules,
  ],
  options: {
    includeOnly: "^src/",
    // Type-only imports count: a type in the wrong room is a boundary crossed too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
    doNotFollow: { path: "node_modules" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
