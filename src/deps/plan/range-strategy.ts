import { parse, satisfies } from "semver";
import type { DepType, RangeStrategy } from "../config.js";

/**
 * How one bump is written in package.json, by `deps.range_strategy`:
 * - bump: the range follows the new version in its own style (^1.2.3 -> ^1.4.0);
 * - replace: only a range the new version falls out of is rewritten;
 * - widen: a range the new version falls out of gains it (^1.2.3 -> ^1.2.3 || ^2.0.0);
 * - pin: the exact version;
 * - auto: widen for peer ranges and for libraries without a lockfile (an
 *   in-range update is npm's to take there), bump for applications.
 * In-range updates that leave package.json alone move the lockfile only; with
 * no lockfile there is nothing to move, and the update is left out with that reason.
 */

const SIMPLE = /^(\^|~|=|v|)(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;
/**
 * A range written to a major or a minor: `^4`, `~4.5`, `^0.19`, `4`, `4.x`,
 * `4.5.*` (vueuse writes its peers `"axios": "^1"`, react-router's
 * playground `"@vitejs/plugin-react": "^4"`).
 */
const PARTIAL = /^(\^|~|)(\d+)(?:\.(\d+|[xX*]))?(?:\.([xX*]))?$/;

/**
 * A partial range rewritten to `to` at the same precision, as Renovate
 * writes it (`^4` -> `^6`, `~4.5` -> `~6.3`, `4.x` -> `6.x`); undefined
 * for any other range, or for a prerelease, which no partial range allows.
 */
function partialRange(spec: string, to: string): string | undefined {
  const partial = PARTIAL.exec(spec);
  const version = parse(to);
  if (!partial || !version || version.prerelease.length > 0) return undefined;
  const [, operator = "", , minor, patch] = partial;
  const minorPart =
    minor === undefined ? "" : /^\d+$/.test(minor) ? `.${version.minor}` : `.${minor}`;
  return `${operator}${version.major}${minorPart}${patch === undefined ? "" : `.${patch}`}`;
}

export type RangeWrite =
  /** spec null: package.json keeps its range, the lockfile moves. */
  | { kind: "write"; spec: string | null }
  /** Nothing to propose (in range, no lockfile). */
  | { kind: "leave"; reason: string }
  | { kind: "refuse"; reason: string };

export interface RangeContext {
  strategy: RangeStrategy;
  section: DepType;
  hasLockfile: boolean;
}

export function resolveStrategy(context: RangeContext): Exclude<RangeStrategy, "auto"> {
  if (context.strategy !== "auto") return context.strategy;
  if (context.section === "peerDependencies" || !context.hasLockfile) return "widen";
  return "bump";
}

export function writeRange(spec: string, to: string, context: RangeContext): RangeWrite {
  const strategy = resolveStrategy(context);
  const trimmed = spec.trim();
  const simple = SIMPLE.exec(trimmed);
  const inRange = satisfies(to, trimmed);
  const prefix = simple ? (simple[1] === "v" || simple[1] === "=" ? "" : (simple[1] ?? "")) : "^";
  const changed = (next: string): RangeWrite => ({
    kind: "write",
    spec: next === spec ? null : next,
  });
  const untouched = (): RangeWrite =>
    context.section === "peerDependencies"
      ? {
          kind: "leave",
          reason: `${to} is inside the peer range "${spec}", which already accepts it (range strategy ${strategy})`,
        }
      : context.hasLockfile
        ? { kind: "write", spec: null }
        : {
            kind: "leave",
            reason: `${to} is inside "${spec}": without a lockfile an install already takes it (range strategy ${strategy})`,
          };

  if (strategy === "pin") return changed(to);
  const partial = simple ? undefined : partialRange(trimmed, to);
  if (strategy === "bump") {
    if (simple) return changed(`${prefix}${to}`);
    if (partial !== undefined && partial !== trimmed) return changed(partial);
    if (inRange) return untouched();
    return {
      kind: "refuse",
      reason: `the range "${spec}" does not allow ${to} and is not a plain ^, ~, exact or partial (^4, ~4.5, 4.x) version to rewrite (try range_strategy widen or replace)`,
    };
  }
  if (inRange) return untouched();
  if (strategy === "replace") return changed(partial ?? `${prefix}${to}`);
  // widen: an exact version has no range to widen, so it is replaced.
  if (simple && prefix === "") return changed(to);
  return changed(`${trimmed} || ${prefix}${to}`);
}
