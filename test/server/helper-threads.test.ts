/**
 * cluster/helper-threads.ts: the threads a worker started with are lowered to the least priority, one by
 * one, and the thread that lowers them keeps its own.
 */
import { existsSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { lowerThreads, otherThreads } from "../../server/cluster/helper-threads.js";

const linux = existsSync("/proc/self/task");

/** A thread's niceness (/proc/self/task/<tid>/stat, field 19). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe.skipIf(!linux)("helper threads", () => {
  const workers: Worker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
  });

  it("lists this process's threads but its main one, and lowers the ones given to the least priority", async () => {
    const before = new Set(otherThreads());
    expect(before.has(process.pid)).toBe(false);
    const worker = new Worker("setInterval(() => {}, 1000); require('node:worker_threads').parentPort.postMessage('up');", { eval: true });
    workers.push(worker);
    await new Promise((resolve) => worker.once("message", resolve));
    const started = otherThreads().filter((tid) => !before.has(tid));
    expect(started.length).toBeGreaterThan(0);
    expect(started.map(niceOf)).toEqual(started.map(() => 0));

    expect(lowerThreads(started)).toBe(started.length);
    expect(started.map(niceOf)).toEqual(started.map(() => 19));
    expect(niceOf(process.pid)).toBe(0);
    // A thread that is gone is skipped.
    expect(lowerThreads([2 ** 22 + 12345])).toBe(0);
  });
});
