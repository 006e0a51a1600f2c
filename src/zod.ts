import { config, type core, gte, int, NEVER, number } from "zod/mini";
import english from "zod/v4/locales/en.js";

/**
 * zod as the rest of src/ imports it, `import * as z from "../zod.js"` (the
 * one import of the package; the boundaries check refuses any other):
 * zod/mini, with zod's English messages.
 *
 * Mini, not the classic API: each classic schema carries every method, and
 * the Action's first model request waits on loading its bundle. Classic zod
 * took about 42 ms of CPU to import on Node 24 on the 2-core VM, mini about
 * 12, and a mini schema costs about half as much to build. The schemas
 * parse the same: same issues, messages, defaults and JSON Schema.
 *
 * `export *`, imported as a namespace, is what lets the bundler keep only
 * the functions used: `export * as z` made the bundle keep every one, and
 * so does a dynamic import() of this file.
 *
 * The messages: classic zod installs its English ones as it builds its first
 * schema; mini leaves the locale unset ("Invalid input" for everything), so
 * it is set here, before any module that imports this one builds a schema.
 * Only the English file is imported: `z.locales` would load all fifty.
 */
config(english());

export * from "zod/mini";

/**
 * Inside a `z.transform`: adds a custom issue with `message` and returns
 * what the transform returns then. zod/mini's transform context has no
 * `addIssue` (classic's had); this is the issue it added, with the same
 * code, message and input.
 */
export function failTransform(ctx: core.ParsePayload, message: string): never {
  ctx.issues.push({ code: "custom", message, input: ctx.value });
  return NEVER;
}

/**
 * A whole number of at least `min`, every way of missing it answered with
 * `message` (a config key's, naming its unit: "expected a whole number of
 * files, 1 or more").
 */
export function wholeNumber(min: number, message: string) {
  const error = { error: message };
  return number(error).check(int(error), gte(min, error));
}

/**
 * What `build` returns, built on the first call and kept: for schemas that
 * a module loaded at every start holds but only some jobs read (a plan's
 * answer, a review's tool). zod's constructors cost: those two took about
 * 5 ms of the Action's way to its first model request on Node 24.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
