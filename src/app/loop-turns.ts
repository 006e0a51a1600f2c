/**
 * Lets at most `perTurn` callers through per turn of the event loop; the
 * rest wait for the next turns, in the order they came.
 *
 * Why: libuv accepts one connection per turn of the loop. When a burst
 * opens fifty connections at once and each turn parses every delivery
 * that is ready, the turns get long and the last connections wait
 * hundreds of milliseconds just to be accepted. Short turns keep accepting.
 */
export function createLoopTurns(perTurn: number): () => Promise<void> {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const release = () => {
    for (let i = 0; i < perTurn && waiting.length > 0; i++) waiting.shift()?.();
    // Set from within the check phase, the next release is in the next turn.
    if (waiting.length > 0) setImmediate(release);
    else scheduled = false;
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        setImmediate(release);
      }
    });
}
