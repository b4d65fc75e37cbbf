/** Dealing connections to workers (server/cluster/balancer.ts): fewest open first, ties in turn; and the workers' collector options (primary.ts). */
import { expect, test } from "vitest";
import { LeastConnections } from "../../server/cluster/balancer.js";
import { workerGc } from "../../server/cluster/primary.js";

function dealt(balancer: LeastConnections<string>, count: number): string[] {
  return Array.from({ length: count }, () => balancer.pick()!);
}

test("connections opened at once are dealt evenly, in turn", () => {
  const balancer = new LeastConnections<string>();
  balancer.add("a");
  balancer.add("b");
  expect(dealt(balancer, 8)).toEqual(["a", "b", "a", "b", "a", "b", "a", "b"]);
  expect([balancer.openOf("a"), balancer.openOf("b")]).toEqual([4, 4]);
});

test("a new connection goes to the worker with the fewest open", () => {
  const balancer = new LeastConnections<string>();
  for (const worker of ["a", "b", "c"]) balancer.add(worker);
  dealt(balancer, 6);
  balancer.closed("b", 2);
  expect(dealt(balancer, 2)).toEqual(["b", "b"]);
  balancer.closed("c");
  expect(balancer.pick()).toBe("c");
  // Counts never go below zero, whatever a late report says.
  balancer.closed("a", 10);
  expect(balancer.openOf("a")).toBe(0);
  expect(balancer.pick()).toBe("a");
});

test("a worker removed gets nothing; one added starts from none; with none, nothing is picked", () => {
  const balancer = new LeastConnections<string>();
  expect(balancer.pick()).toBeUndefined();
  balancer.add("a");
  balancer.add("b");
  dealt(balancer, 4);
  balancer.remove("a");
  expect(dealt(balancer, 2)).toEqual(["b", "b"]);
  expect(balancer.openOf("a")).toBe(0);
  // The replacement takes connections until it holds as many as the others.
  balancer.add("c");
  expect(dealt(balancer, 5)).toEqual(["c", "c", "c", "c", "b"]);
  balancer.remove("b");
  balancer.remove("c");
  expect(balancer.pick()).toBeUndefined();
});

test("workers collect their garbage on their own thread only when they fill every core", () => {
  expect(workerGc(2, 2)).toEqual(["--single-threaded-gc"]);
  expect(workerGc(4, 2)).toEqual(["--single-threaded-gc"]);
  expect(workerGc(2, 8)).toEqual([]);
});
