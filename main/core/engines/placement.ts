/**
 * Where a new workspace goes when the caller names no engine: among the reachable engines (in
 * order: the local one first, then remote ones oldest first), the one with the fewest running or
 * starting sessions; a tie keeps the earlier one. Null when none is reachable.
 */
export function leastLoaded(reachable: readonly string[], runningSessions: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  for (const id of reachable)
    if (best === null || (runningSessions.get(id) ?? 0) < (runningSessions.get(best) ?? 0)) best = id;
  return best;
}
