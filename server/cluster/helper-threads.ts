/**
 * With a worker for every core, each worker's main thread needs a core of
 * its own, and V8's background threads (its optimizing compiler; the
 * collector's threads are off there, primary.ts `workerGc`) run on those
 * same cores: while one holds a core, the requests of the worker whose core
 * it took wait. Lowered to the least priority, they run on what the main
 * threads leave, and a worker's compiled code arrives a little later instead.
 *
 * Linux only: there a thread's niceness is its own (setpriority of its id);
 * elsewhere nothing is lowered.
 */
import { readdirSync } from "node:fs";
import { constants, setPriority } from "node:os";

/** This process's threads other than the main one, by id (empty where /proc does not list them). */
export function otherThreads(): number[] {
  try {
    return readdirSync("/proc/self/task")
      .map(Number)
      .filter((tid) => Number.isInteger(tid) && tid !== process.pid);
  } catch {
    return [];
  }
}

/** Sets each of `tids` to the least priority; says how many were lowered (a thread gone meanwhile is skipped). */
export function lowerThreads(tids: readonly number[], priority = constants.priority.PRIORITY_LOW): number {
  let lowered = 0;
  for (const tid of tids) {
    try {
      setPriority(tid, priority);
      lowered++;
    } catch {
      // the thread ended, or the system refuses
    }
  }
  return lowered;
}
