/**
 * A round's throughput windows, each floor beside the paths compared with it (a path with two
 * floors beside the last it names), in the round's direction. V8's memory reducer shrinks a heap
 * that saw no load for 8 s, and growing it back costs the gateway more than the small floors
 * (bench/after-idle.ts measures both after the same pause). Floors first and every gateway path
 * last made the gateway wait through all the floors' windows, 20-40 s, in one round direction, and
 * compared a paused gateway with a warm floor. Grouped, no server that a path is compared with
 * waits longer than the floor-only groups between (a few seconds).
 */
export function groupedByFloor<C extends { spec: { id: string; floors: string[] } }>(order: C[]): C[] {
  const firstIndex = new Map<string, number>();
  order.forEach((c, i) => {
    if (!firstIndex.has(c.spec.id)) firstIndex.set(c.spec.id, i);
  });
  // The last floor a path names that this run has (the same one whichever way the round goes).
  const anchorOf = (c: C, i: number) => {
    const floor = c.spec.floors.findLast((f) => firstIndex.has(f));
    return firstIndex.get(floor ?? c.spec.id) ?? i;
  };
  return order
    .map((cell, i) => ({ cell, i, anchor: anchorOf(cell, i) }))
    .sort((a, b) => a.anchor - b.anchor || a.i - b.i)
    .map((x) => x.cell);
}
