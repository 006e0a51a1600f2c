import { baseMovedKind } from "./base-moved.js";
import { depsKind } from "./deps.js";
import type { JobKind } from "./inputs.js";
import type { AnyJobKind, JobKindDefinition } from "./kind.js";
import { planWatchKind } from "./plan-watch.js";
import { requestKind } from "./request.js";

/** Every kind the service runs, by kind: one for each input schema in inputs.ts. */
const jobKinds: { [K in JobKind]: JobKindDefinition<K> } = {
  request: requestKind,
  deps: depsKind,
  base_moved: baseMovedKind,
  plan_watch: planWatchKind,
};

/**
 * A kind's definition; none for a name that is no kind of the service's.
 * Typed for a record of any kind: the record's kind picks the definition,
 * and the queue read its inputs with that same kind's schema, a link the
 * compiler cannot follow through the lookup.
 */
export function jobKindOf(kind: string): AnyJobKind | undefined {
  return Object.hasOwn(jobKinds, kind)
    ? (jobKinds[kind as JobKind] as unknown as AnyJobKind)
    : undefined;
}
