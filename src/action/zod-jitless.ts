import { config } from "../zod.js";

/**
 * Imported by run.ts before main.js, so before any schema is made (zod reads
 * the setting as each one is built): zod turns an object schema's first
 * parse into generated code, which pays only when a process parses it many
 * times; a run parses most of its schemas once or twice (measured on the
 * 2-core VM, interleaved runs: about 10 ms sooner to the first model request
 * without it). A module of its own because a dynamic import() of src/zod.ts
 * would make the bundle keep all of zod/mini.
 */
config({ jitless: true });
