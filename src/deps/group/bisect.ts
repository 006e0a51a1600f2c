/**
 * Finding which updates of a group break it. `passes(subset)` applies,
 * installs and verifies a subset (expensive: minutes on a real project), so
 * the search uses prefixes: the shortest failing prefix ends with an update
 * that breaks the build together with the ones before it (a plain culprit
 * or an interaction), found in log2(n) checks. It is left out and the search
 * repeats on the rest until the rest passes or the budget runs out.
 */

export interface BisectResult<T> {
  /** The updates kept: together they passed the last check. */
  kept: T[];
  culprits: T[];
  /** Checks made. */
  checks: number;
  /** False when the budget ran out before a passing set was found (then `kept` is empty). */
  settled: boolean;
  /**
   * The largest set a check saw pass (the whole of `kept` when settled): when
   * the budget runs out, what can still ship as it is, the rest being
   * untried (lerna's 48 updates had two culprits; 12 checks found one).
   */
  passing: T[];
}

export interface BisectOptions<T> {
  items: readonly T[];
  passes(subset: readonly T[]): Promise<boolean>;
  /** Most checks to spend (default 12, as `deps.max_bisect_checks`). */
  maxChecks?: number;
  /** Already known to fail together (skips that first check). */
  knownFailing?: boolean;
}

export async function isolateCulprits<T>(options: BisectOptions<T>): Promise<BisectResult<T>> {
  const maxChecks = options.maxChecks ?? 12;
  let checks = 0;
  const check = async (subset: readonly T[]) => {
    checks += 1;
    return options.passes(subset);
  };
  let rest = [...options.items];
  const culprits: T[] = [];
  let failing = options.knownFailing === true;
  let passing: T[] = [];
  const passed = (subset: T[]) => {
    if (subset.length > passing.length) passing = subset;
  };
  const outOfChecks = () => ({ kept: [], culprits, checks, settled: false, passing });

  while (rest.length > 0) {
    if (!failing) {
      if (checks >= maxChecks) return outOfChecks();
      if (await check(rest)) return { kept: rest, culprits, checks, settled: true, passing: rest };
    }
    // The whole of `rest` fails; find the shortest failing prefix.
    let low = 0; // prefix of length `low` is known (or assumed, for 0) to pass
    let high = rest.length; // prefix of length `high` is known to fail
    while (high - low > 1) {
      if (checks >= maxChecks) return outOfChecks();
      const mid = Math.floor((low + high) / 2);
      const prefix = rest.slice(0, mid);
      if (await check(prefix)) {
        low = mid;
        passed(prefix);
      } else high = mid;
    }
    const culprit = rest[high - 1] as T;
    culprits.push(culprit);
    rest = rest.filter((_, i) => i !== high - 1);
    failing = false;
  }
  return { kept: [], culprits, checks, settled: true, passing: [] };
}
