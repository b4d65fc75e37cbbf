/** The exits in a few words, for a progress line and a run's report. */
import type { ExitPoolSnapshot } from "./exit-pool.js";

/** "waiting: all 4 exits cooling, next in 7 s" while every exit rests; otherwise how many cool or are out, or "" when all are fine. */
export function describeExits(snapshot: ExitPoolSnapshot): string {
  const count = snapshot.exits.length;
  const cooling = snapshot.exits.filter((e) => e.condition === "cooling").length;
  const dead = snapshot.exits.filter((e) => e.condition === "dead").length;
  const exits = count === 1 ? "the exit" : `all ${count} exits`;
  if (snapshot.allResting) {
    const state = dead === 0 ? "cooling" : cooling === 0 ? "out" : `cooling or out`;
    const next = snapshot.nextReadyAt === undefined ? "" : `, next in ${Math.max(1, Math.ceil((snapshot.nextReadyAt - snapshot.at) / 1000))} s`;
    return `waiting: ${count === 1 ? `${exits} is` : exits} ${state}${next}`;
  }
  const parts = [...(cooling > 0 ? [`${cooling} cooling`] : []), ...(dead > 0 ? [`${dead} out`] : [])];
  return parts.length === 0 ? "" : `exits: ${parts.join(", ")} of ${count}`;
}

/** Blocked answers through every exit of a snapshot (this process's), for a progress line. */
export function blockedThrough(snapshot: ExitPoolSnapshot): number {
  return snapshot.exits.reduce((sum, exit) => sum + exit.blocked, 0);
}
