/**
 * The exit pool's rules on a manual clock: pacing and in-flight per exit,
 * least recently used first, cool-down after a block (Retry-After, or a
 * backoff that doubles per block in a row), dead exits probed later, callers
 * waiting while every exit rests or refused past their longest wait.
 */
import { describe, expect, it } from "vitest";
import { ExitPool, ExitsResting, type ExitClock } from "../../pipeline/youtube/index.js";
import { describeExits } from "../../pipeline/youtube/exits/describe-exits.js";
import { DEFAULT_EXIT_POLICY } from "../../pipeline/youtube/exits/exit-policy.js";
import { claimOn } from "../../pipeline/youtube/exits/exit-rules.js";
import { emptyRecord } from "../../pipeline/youtube/exits/exit-state-store.js";

class ManualClock implements ExitClock {
  #now = 1_000_000;
  readonly #sleepers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.#now;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const sleeper = { at: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", () => {
        this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
        reject(signal.reason);
      }, { once: true });
    });
  }
  /** Moves time on by `ms`, waking every sleeper due, and lets the woken callers run. */
  async advance(ms: number): Promise<void> {
    this.#now += ms;
    for (const sleeper of this.#sleepers.filter((s) => s.at <= this.#now)) {
      this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
      sleeper.resolve();
    }
    await settle();
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function pool(options: { proxies?: number; policy?: ConstructorParameters<typeof ExitPool>[0]["policy"]; random?: number } = {}) {
  const clock = new ManualClock();
  const urls = Array.from({ length: options.proxies ?? 0 }, (_, i) => `http://user:secret@proxy${i + 1}.example:8080`);
  const exits = new ExitPool({ proxyUrls: urls, clock, random: () => options.random ?? 0, policy: { coolDownMs: 1_000, coolDownMaxMs: 8_000, probeAfterMs: 5_000, probeMaxMs: 20_000, ...options.policy } });
  return { clock, exits };
}

/** Starts an acquire and reports whether and when it got an exit. */
function pending(exits: ExitPool, clock: ManualClock, options: Parameters<ExitPool["acquire"]>[0] = {}) {
  const state: { lease?: Awaited<ReturnType<ExitPool["acquire"]>>; at?: number; error?: unknown } = {};
  const promise = exits.acquire(options).then(
    (lease) => {
      state.lease = lease;
      state.at = clock.now();
      return lease;
    },
    (error: unknown) => {
      state.error = error;
      return undefined;
    },
  );
  return { state, promise };
}

describe("pacing and in flight", () => {
  it("spaces the requests of one exit evenly at requestsPerMinute", async () => {
    const { clock, exits } = pool({ policy: { requestsPerMinute: 60 } });
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const next = pending(exits, clock);
      await settle();
      while (!next.state.lease) await clock.advance(100);
      starts.push(next.state.at! - 1_000_000);
      await next.state.lease.settle({ kind: "answered" });
    }
    expect(starts).toEqual([0, 1_000, 2_000]);
  });

  it("keeps its pace when a start comes late for its slot (a busy host's late timer), and earns no burst from a pause", () => {
    const policy = { ...DEFAULT_EXIT_POLICY, requestsPerMinute: 60 };
    const record = emptyRecord();
    expect(claimOn(record, 0, policy).granted).toBe(true);
    // 300 ms late for the slot at 1 s: the next slot is still at 2 s, not 2.3 s.
    expect(claimOn(record, 1_300, policy).granted).toBe(true);
    expect(claimOn(record, 1_999, policy)).toMatchObject({ granted: false, readyAt: 2_000, reason: "pacing" });
    expect(claimOn(record, 2_000, policy).granted).toBe(true);
    // Idle from 3 s to 9 s: the pace starts again from 9 s, with no catching up.
    expect(claimOn(record, 9_000, policy).granted).toBe(true);
    expect(claimOn(record, 9_500, policy)).toMatchObject({ granted: false, readyAt: 10_000 });
    expect(record.sent).toBe(4);
  });

  it("holds a caller while the exit has maxInFlight requests out, and lets it go when one settles", async () => {
    const { clock, exits } = pool({ policy: { maxInFlight: 2 } });
    const a = await exits.acquire();
    await exits.acquire();
    const third = pending(exits, clock);
    await clock.advance(60_000);
    expect(third.state.lease).toBeUndefined();
    expect(exits.snapshot()).toMatchObject({ waiting: 1, exits: [{ condition: "busy", inFlight: 2 }] });
    await a.settle({ kind: "answered" });
    await settle();
    expect(third.state.lease?.exit.label).toBe("direct");
  });

  it("hands out the least recently used exit, labelled without credentials", async () => {
    const { exits } = pool({ proxies: 3 });
    const labels: string[] = [];
    for (let i = 0; i < 4; i++) {
      const lease = await exits.acquire();
      labels.push(lease.exit.label);
      await lease.settle({ kind: "answered" });
    }
    expect(labels).toEqual(["proxy 1 (proxy1.example:8080)", "proxy 2 (proxy2.example:8080)", "proxy 3 (proxy3.example:8080)", "proxy 1 (proxy1.example:8080)"]);
    expect(JSON.stringify(exits.snapshot())).not.toContain("secret");
  });
});

describe("cool-down after a block", () => {
  it("sends nothing through a blocked exit before its Retry-After, using the others meanwhile", async () => {
    const { clock, exits } = pool({ proxies: 2 });
    const first = await exits.acquire();
    await first.settle({ kind: "blocked", retryAfterMs: 7_000 });
    for (let i = 0; i < 3; i++) {
      const lease = await exits.acquire();
      expect(lease.exit.label).toMatch(/^proxy 2/);
      await lease.settle({ kind: "answered" });
    }
    await clock.advance(6_999);
    expect((await exits.acquire()).exit.label).toMatch(/^proxy 2/);
    await clock.advance(1);
    expect((await exits.acquire()).exit.label).toMatch(/^proxy 1/);
  });

  it("without Retry-After, rests for a backoff that doubles with each block in a row, with jitter, capped", async () => {
    const { clock, exits } = pool({ random: 0.5 });
    const rests: number[] = [];
    for (let i = 0; i < 5; i++) {
      const lease = await exits.acquire();
      await lease.settle({ kind: "blocked" });
      rests.push(exits.snapshot().exits[0]!.coolingUntil! - clock.now());
      await clock.advance(rests.at(-1)!);
    }
    // 1 s, 2 s, 4 s, 8 s times 1.25, capped at 8 s.
    expect(rests).toEqual([1_250, 2_500, 5_000, 8_000, 8_000]);
    const ok = await exits.acquire();
    await ok.settle({ kind: "answered" });
    await (await exits.acquire()).settle({ kind: "blocked" });
    expect(exits.snapshot().exits[0]!.coolingUntil! - clock.now()).toBe(1_250);
  });

  it("counts requests sent before a block that come back blocked as the same block, and does not end the block on their answers", async () => {
    const { clock, exits } = pool({ random: 0 });
    const early = [await exits.acquire(), await exits.acquire(), await exits.acquire()];
    await early[0]!.settle({ kind: "blocked" });
    await early[1]!.settle({ kind: "blocked" });
    await early[2]!.settle({ kind: "answered" });
    expect(exits.snapshot().exits[0]).toMatchObject({ condition: "cooling", blocked: 2, coolingUntil: clock.now() + 1_000 });
    await clock.advance(1_000);
    await (await exits.acquire()).settle({ kind: "blocked" });
    // The second block in a row (the first sent after the first block): 2 s.
    expect(exits.snapshot().exits[0]!.coolingUntil! - clock.now()).toBe(2_000);
  });

  it("makes callers wait while every exit cools, says so, and lets them go when the first cool-down ends", async () => {
    const { clock, exits } = pool({ proxies: 2 });
    await (await exits.acquire()).settle({ kind: "blocked", retryAfterMs: 7_000 });
    await (await exits.acquire()).settle({ kind: "blocked", retryAfterMs: 3_000 });
    const waiter = pending(exits, clock);
    await clock.advance(1_000);
    const snapshot = exits.snapshot();
    expect(snapshot).toMatchObject({ allResting: true, waiting: 1, nextReadyAt: clock.now() + 2_000 });
    expect(describeExits(snapshot)).toBe("waiting: all 2 exits cooling, next in 2 s");
    await clock.advance(1_999);
    expect(waiter.state.lease).toBeUndefined();
    await clock.advance(1);
    expect(waiter.state.lease?.exit.label).toMatch(/^proxy 2/);
  });

  it("refuses a caller whose longest wait is shorter than the rest, with a Retry-After", async () => {
    const { exits } = pool();
    await (await exits.acquire()).settle({ kind: "blocked", retryAfterMs: 12_000 });
    const error = await exits.acquire({ maxWaitMs: 5_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExitsResting);
    expect(error).toMatchObject({ code: "rate_limited", kind: "blocked", retryAfterSeconds: 12 });
  });

  it("stops waiting when the caller's signal aborts", async () => {
    const { clock, exits } = pool();
    await (await exits.acquire()).settle({ kind: "blocked", retryAfterMs: 60_000 });
    const controller = new AbortController();
    const waiter = pending(exits, clock, { signal: controller.signal });
    await settle();
    controller.abort(new Error("stopped"));
    await waiter.promise;
    expect(waiter.state.error).toMatchObject({ message: "stopped" });
    expect(exits.snapshot().waiting).toBe(0);
  });
});

describe("dead exits", () => {
  it("takes an exit out after deadAfterFailures failures in a row, probes it once after a wait that doubles, and brings it back when the probe is answered", async () => {
    const { clock, exits } = pool({ proxies: 2, policy: { deadAfterFailures: 3 } });
    const dead = "proxy 1 (proxy1.example:8080)";
    let failures = 0;
    while (failures < 3) {
      const lease = await exits.acquire();
      if (lease.exit.label === dead) {
        await lease.settle({ kind: "failed" });
        failures++;
      } else await lease.settle({ kind: "answered" });
    }
    expect(exits.snapshot().exits[0]).toMatchObject({ condition: "dead", failed: 3, probeAt: clock.now() + 5_000 });
    expect(describeExits(exits.snapshot())).toBe("exits: 1 out of 2");
    for (let i = 0; i < 4; i++) {
      const lease = await exits.acquire();
      expect(lease.exit.label).not.toBe(dead);
      await lease.settle({ kind: "answered" });
    }
    await clock.advance(5_000);
    const probe = await exits.acquire();
    expect(probe).toMatchObject({ probe: true, exit: { label: dead } });
    // Only the probe goes through it until it is settled.
    expect((await exits.acquire()).exit.label).not.toBe(dead);
    await probe.settle({ kind: "failed" });
    expect(exits.snapshot().exits[0]!.probeAt).toBe(clock.now() + 10_000);
    await clock.advance(10_000);
    const second = await exits.acquire();
    expect(second.probe).toBe(true);
    await second.settle({ kind: "answered" });
    expect(exits.snapshot().exits[0]!.condition).not.toBe("dead");
  });

  it("refuses a caller with connection_failed when every exit is out past its longest wait", async () => {
    const { exits } = pool({ policy: { deadAfterFailures: 1 } });
    await (await exits.acquire()).settle({ kind: "failed" });
    expect(describeExits(exits.snapshot())).toBe("waiting: the exit is out, next in 5 s");
    await expect(exits.acquire({ maxWaitMs: 1_000 })).rejects.toMatchObject({ code: "connection_failed", retryAfterSeconds: 5 });
  });
});
