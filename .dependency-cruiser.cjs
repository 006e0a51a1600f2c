/**
 * The boundaries of src/, checked by `npm run lint` and by
 * test/boundaries.test.ts: no import cycles, and the rooms table, where a
 * room imports only the rooms below it. The order, lowest first:
 *
 *   edit-distance.ts, error-message.ts   root utilities
 *   json-text.ts                         JSON files as npm reads them (a byte order mark skipped)
 *   load-on-first-call.ts                a function whose code is imported at its first call
 *   zod.ts                               zod/mini with English messages, src/'s one import of zod
 *   load-yaml.ts                         the YAML library, imported when first needed
 *   spawner.ts (+ spawner/)              short-lived programs, started by a helper process
 *   scratch.ts                           scratch folders under the temp dir, swept after a crash
 *   secrets                              what a secret looks like
 *   requests, git, sandbox, queue        the request model; git; the sandbox; the job queues
 *   agent                                the model loop, its tools and policy
 *   github                               the GitHub API and what is written there (the agent's progress too)
 *   config                               .github/patchwright.yml (its policy, model and MCP settings are the agent's)
 *   kernel                               what every job kind uses (services, events, steps, worksite, push, commands)
 *   change                               the change pipeline (its steps, checkpoints, resume)
 *   report                               what a change did, rendered
 *   deps                                 dependency bumps
 *   thread                               requests in a thread: admit, kinds, reports
 *   service                              a worker: queue, handlers, start-up, shutdown
 *   pages                                the job pages on the App's server (sign-in, list, live job)
 *   app, action, cli (+ cli.ts)          entry rooms: nothing imports them
 *
 * The queue is generic: it knows jobs, not what they do, so it imports no
 * domain room. A new folder under src/ needs a row here (rule
 * `room-unknown`), so no code lives outside the table.
 */

/** Room → the rooms it may import (its own is always allowed). */
const ROOT = [
  "edit-distance",
  "error-message",
  "json-text",
  "load-on-first-call",
  "load-yaml",
  "scratch",
  "spawner",
  "zod",
];
const rooms = {
  "edit-distance": [],
  "error-message": [],
  "json-text": [],
  "load-on-first-call": [],
  "load-yaml": [],
  scratch: [],
  spawner: [],
  zod: [],
  secrets: [...ROOT],
  requests: [...ROOT, "secrets"],
  git: [...ROOT, "secrets"],
  sandbox: [...ROOT, "secrets"],
  queue: [...ROOT],
};
rooms.agent = [...ROOT, "secrets", "requests", "git", "sandbox", "queue"];
rooms.github = [...rooms.agent, "agent"];
rooms.config = [...rooms.github, "github"];
rooms.kernel = [...rooms.config, "config"];
rooms.change = [...rooms.kernel, "kernel"];
rooms.report = [...rooms.change, "change"];
rooms.deps = [...rooms.report, "report"];
rooms.thread = [...rooms.deps, "deps"];
rooms.service = [...rooms.thread, "thread"];
rooms.pages = [...rooms.service, "service"];
for (const entry of ["app", "action", "cli"]) rooms[entry] = [...rooms.pages, "pages"];

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
    {
      name: "zod-through-src-zod",
      comment:
        "import { z } from src/zod.ts: zod/mini with zod's English messages set before any schema is built",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/zod\\.ts$" },
      to: { path: "^node_modules/zod/" },
    },
    ...roomRules,
  ],
  options: {
    // src/, and zod only so that zod-through-src-zod can see who imports it.
    includeOnly: "^(src/|node_modules/zod/)",
    // Type-only imports count: a type in the wrong room is a boundary crossed too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
    doNotFollow: { path: "node_modules" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
