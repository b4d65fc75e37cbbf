/**
 * The primary's rate-limit count leased to its workers (server/cluster/rate-leases.ts
 * and leased-rate-limiter.ts): exact per key and window however requests
 * spread over workers, with most requests counted in the worker alone. The
 * workers here are the real limiters, joined to the primary's leases by
 * in-order channels with random delays, as node:cluster's IPC is in order.
 * test/reliability/workers.test.ts checks the same over real processes.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createLeasedRateLimiter, type LeasedRateLimiter } from "../../server/cluster/leased-rate-limiter.js";
import { RateLeases, type LeaseHolder, type RateGrant } from "../../server/cluster/rate-leases.js";
import type { RateLimitDecision } from "../../server/rate-limit/rate-limiter.js";

/** 15 s into a minute. */
const MINUTE_START = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
const NOW = MINUTE_START + 15_000;

/** Messages one way, delivered in the order sent, each after a delay from `delays`. */
class Channel {
  #tail: Promise<void> = Promise.resolve();
  constructor(readonly delays: () => number) {}
  send(deliver: () => void): void {
    const ms = this.delays();
    this.#tail = this.#tail.then(() => new Promise<void>((resolve) => setTimeout(resolve, ms))).then(deliver);
  }
}

class Worker implements LeaseHolder {
  readonly limiter: LeasedRateLimiter;
  /** Questions put to the primary. */
  asks = 0;
  /** Whether it answers recalls (a hung worker does not). */
  answers = true;
  readonly #up: Channel;
  readonly #down: Channel;

  constructor(
    readonly id: number,
    readonly leases: RateLeases,
    delays: () => number,
  ) {
    this.#up = new Channel(delays);
    this.#down = new Channel(delays);
    this.limiter = createLeasedRateLimiter(
      (keyId, nowMs) =>
        new Promise<RateGrant>((resolve) => {
          this.asks++;
          this.#up.send(() => leases.consume(this, keyId, nowMs, (grant) => this.#down.send(() => resolve(grant))));
        }),
    );
  }

  recall(keyId: string, window: number): void {
    this.#down.send(() => {
      if (!this.answers) return;
      const ranges = this.limiter.recall(keyId, window);
      this.#up.send(() => this.leases.returned(this, keyId, window, ranges));
    });
  }
}

function workers(count: number, leases: RateLeases, delays: () => number = () => 0): Worker[] {
  return Array.from({ length: count }, (_, i) => new Worker(i + 1, leases, delays));
}

const allowed = (decisions: RateLimitDecision[]) => decisions.filter((d) => d.allowed);
const remainingOf = (decisions: RateLimitDecision[]) => allowed(decisions).map((d) => d.remaining).sort((a, b) => a - b);

describe("rate leases over several workers", () => {
  test("300 concurrent requests of one key over three workers: exactly 100 pass, each remaining count once", async () => {
    const leases = new RateLeases({ limit: 100 });
    const all = workers(3, leases, () => Math.random() * 2);
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => all[i % 3]!.limiter.consume("k", NOW)));
    expect(allowed(decisions)).toHaveLength(100);
    expect(remainingOf(decisions)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const refused of decisions.filter((d) => !d.allowed)) expect(refused).toEqual({ allowed: false, limit: 100, remaining: 0, resetAt: (MINUTE_START + 60_000) / 1000 });
    // Every worker let some through: the count is one, not one per worker.
    for (const worker of all) expect(allowed(decisions.filter((_, i) => i % 3 === worker.id - 1)).length).toBeGreaterThan(0);
  });

  test("far from the limit, a worker asks the primary for a small share of its requests", async () => {
    const leases = new RateLeases({ limit: 1_000_000, maxLease: 64 });
    const [worker] = workers(1, leases);
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 6400; i++) decisions.push(await worker!.limiter.consume("k", NOW));
    expect(allowed(decisions)).toHaveLength(6400);
    // One question, then one per lease of 64 (each answer also lets its own request through).
    expect(worker!.asks).toBeLessThanOrEqual(Math.ceil(6400 / 65) + 1);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 6400 }, (_, i) => 1_000_000 - 1 - i));
  });

  test("a lease stranded on an idle worker is recalled: the busy one still gets the whole limit", async () => {
    const leases = new RateLeases({ limit: 100 });
    const [idle, busy] = workers(2, leases);
    // One request on the idle worker takes a lease of the first ordinals; it makes no other.
    expect(await idle!.limiter.consume("k", NOW)).toMatchObject({ allowed: true, remaining: 99 });
    expect(idle!.limiter.size()).toBe(1);
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 120; i++) decisions.push(await busy!.limiter.consume("k", NOW));
    expect(allowed(decisions)).toHaveLength(99);
    expect(remainingOf(decisions)).toEqual(Array.from({ length: 99 }, (_, i) => i));
    expect(idle!.limiter.size()).toBe(0);
  });

  test("a worker that does not answer a recall keeps its lease as taken: fewer pass, never more", async () => {
    const late: [number, number][] = [];
    const leases = new RateLeases({ limit: 100, recallTimeoutMs: 50, onLateRecall: (holders, timeoutMs) => late.push([holders, timeoutMs]) });
    const [hung, busy] = workers(2, leases);
    await hung!.limiter.consume("k", NOW);
    hung!.answers = false;
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 120; i++) decisions.push(await busy!.limiter.consume("k", NOW));
    const passed = allowed(decisions).length;
    expect(passed).toBeLessThan(99);
    expect(passed).toBeGreaterThan(50);
    // Each recall the hung worker let run out is told once, with the one worker that did not answer.
    expect(late.length).toBeGreaterThan(0);
    expect(late.every(([holders, timeoutMs]) => holders === 1 && timeoutMs === 50)).toBe(true);
    // What the hung worker holds is still its own to take, so the count stays exact overall.
    const rest: RateLimitDecision[] = [];
    for (let i = 0; i < 100; i++) rest.push(await hung!.limiter.consume("k", NOW));
    expect(passed + allowed(rest).length + 1).toBeLessThanOrEqual(100);
    const ordinals = [...allowed(decisions), ...allowed(rest)].map((d) => d.remaining);
    expect(new Set(ordinals).size).toBe(ordinals.length);
  });

  test("a worker that exits while recalled no longer holds the others' questions", async () => {
    const leases = new RateLeases({ limit: 10, recallTimeoutMs: 60_000 });
    const [gone, busy] = workers(2, leases);
    await gone!.limiter.consume("k", NOW);
    gone!.answers = false;
    const decisions: RateLimitDecision[] = [];
    const pending = (async () => {
      for (let i = 0; i < 20; i++) decisions.push(await busy!.limiter.consume("k", NOW));
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    leases.gone(gone!);
    await pending;
    expect(decisions).toHaveLength(20);
    expect(allowed(decisions).length).toBeLessThanOrEqual(9);
    leases.close();
  });

  test("a new minute starts a new count, and a lease of the last minute is not used in it", async () => {
    const leases = new RateLeases({ limit: 100 });
    const [worker] = workers(1, leases);
    for (let i = 0; i < 100; i++) await worker!.limiter.consume("k", NOW);
    expect(await worker!.limiter.consume("k", NOW)).toMatchObject({ allowed: false });
    // A lease of the new minute, half of it taken; at the minute after, its rest is dropped.
    const next = NOW + 60_000;
    expect(await worker!.limiter.consume("k", next)).toEqual({ allowed: true, limit: 100, remaining: 99, resetAt: (MINUTE_START + 120_000) / 1000 });
    expect(await worker!.limiter.consume("k", next + 60_000)).toMatchObject({ allowed: true, remaining: 99 });
    expect(worker!.limiter.size()).toBe(1);
    expect(leases.size).toBe(1);
  });

  test("keys are counted apart", async () => {
    const leases = new RateLeases({ limit: 3 });
    const [a, b] = workers(2, leases);
    const decisions = await Promise.all([a, b, a, b].flatMap((w) => [w!.limiter.consume("x", NOW), w!.limiter.consume("y", NOW)]));
    expect(allowed(decisions)).toHaveLength(6);
  });

  test("property: any spread of requests over workers, any limit and delays: min(requests, limit) pass, no ordinal twice", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 30 })), { minLength: 1, maxLength: 150, size: "max" }),
        fc.infiniteStream(fc.nat({ max: 3 })),
        async (workerCount, limit, requests, delays) => {
          const leases = new RateLeases({ limit, recallTimeoutMs: 60_000 });
          const stream = delays[Symbol.iterator]();
          const all = workers(workerCount, leases, () => stream.next().value as number);
          // Each request goes to a worker after a delay of its own, so they interleave with the questions and recalls.
          const decisions = await Promise.all(
            requests.map(async ([w, wait]) => {
              await new Promise((resolve) => setTimeout(resolve, wait));
              return all[w % workerCount]!.limiter.consume("k", NOW);
            }),
          );
          const passed = allowed(decisions);
          expect(passed).toHaveLength(Math.min(requests.length, limit));
          const remaining = passed.map((d) => d.remaining);
          expect(new Set(remaining).size).toBe(remaining.length);
          for (const r of remaining) expect(r >= 0 && r < limit).toBe(true);
          leases.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});
