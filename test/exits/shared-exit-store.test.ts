/**
 * Exit state shared between pools, as between the server's live fetcher and
 * the pipeline of one host (two opens of one real `exits.db`) and between the
 * replicas of a fleet (two connections to a real Redis, a prefix of the
 * test's own): a block one pool meets rests the exit for the other, pacing
 * holds across both, two hosts' direct routes stay apart, keys carry no
 * credentials, and an unreachable Redis falls back to the host's file without
 * failing a request. The Redis cases are skipped with one line without Redis.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_EXIT_POLICY, ExitPool, ExitsResting, type ExitPolicy, type ExitStateStore } from "../../pipeline/youtube/index.js";
import { connectExitRedis } from "../../pipeline/youtube/exits/exit-redis.js";
import { openExitStore } from "../../pipeline/youtube/exits/open-exit-store.js";
import { RedisExitStore } from "../../pipeline/youtube/exits/redis-exit-store.js";
import { SqliteExitStore } from "../../pipeline/youtube/exits/sqlite-exit-store.js";
import { closedPort } from "../helpers/closed-port.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { ownRedis, redisServerInstalled } from "../reliability/helpers/own-redis.js";
import { until } from "../reliability/helpers/child.js";

const redisUp = await redisAvailable("exit state shared through Redis");
const redisServer = await redisServerInstalled("exit state while a Redis of the test's own goes away");
const dirs: string[] = [];
const connections: Redis[] = [];
const closers: (() => void)[] = [];
afterAll(async () => {
  for (const close of closers) close();
  for (const redis of connections) redis.disconnect();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exit-store-"));
  dirs.push(dir);
  return dir;
}

/** Two stores over one shared state, as two processes open it. */
type Pair = () => Promise<[ExitStateStore, ExitStateStore]>;

const hostPair: Pair = async () => {
  const path = join(tempDir(), "exits.db");
  const a = SqliteExitStore.open(path);
  const b = SqliteExitStore.open(path);
  closers.push(() => a.close(), () => b.close());
  return [a, b];
};

const fleetPair: Pair = async () => {
  const prefix = `test-exits-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`;
  const stores = await Promise.all(
    [0, 1].map(async () => {
      const redis = await connectExitRedis({ url: REDIS_URL, deadlineMs: 1_000 });
      connections.push(redis);
      return new RedisExitStore({ redis, prefix });
    }),
  );
  return [stores[0]!, stores[1]!];
};

/** The real store, noting the instant of each claim it granted (the pool's clock, as the store judged it). */
function noteGrants(store: ExitStateStore, starts: number[]): ExitStateStore {
  return {
    claim: async (key, now, policy) => {
      const claimed = await store.claim(key, now, policy);
      if (claimed.granted) starts.push(now);
      return claimed;
    },
    settle: (...args) => store.settle(...args),
    read: (key) => store.read(key),
  };
}

const POLICY: Partial<ExitPolicy> = { coolDownMs: 500, coolDownMaxMs: 2_000 };
const PROXY = "http://user:s3cret-pass@127.0.0.1:3128";

describe.each([
  { name: "one host's exits.db", pair: hostPair, skip: false },
  { name: "the fleet's Redis", pair: fleetPair, skip: !redisUp },
])("two pools over $name", ({ pair, skip }) => {
  it.skipIf(skip)("a block one pool met rests the exit for the other: refused within a short wait, sent only once the Retry-After is over", async () => {
    const [storeA, storeB] = await pair();
    const pipeline = new ExitPool({ proxyUrls: [PROXY], policy: POLICY, store: storeA });
    const server = new ExitPool({ proxyUrls: [PROXY], policy: POLICY, store: storeB });
    const blocked = await pipeline.acquire();
    await blocked.settle({ kind: "blocked", retryAfterMs: 1_200 });
    const blockedAt = Date.now();

    const refused = await server.acquire({ maxWaitMs: 100 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ExitsResting);
    expect(refused).toMatchObject({ code: "rate_limited" });
    expect(Date.now() - blockedAt).toBeLessThan(1_000);
    await server.refresh();
    expect(server.snapshot().exits[0]).toMatchObject({ condition: "cooling", sent: 0, blocked: 0 });

    const lease = await server.acquire();
    expect(Date.now() - blockedAt).toBeGreaterThanOrEqual(1_150);
    await lease.settle({ kind: "answered" });
  });

  it.skipIf(skip)("pacing holds across both pools sending through one exit", async () => {
    const [storeA, storeB] = await pair();
    const policy = { ...POLICY, requestsPerMinute: 600 }; // one start per 100 ms
    const starts: number[] = [];
    const pools = [storeA, storeB].map((store) => new ExitPool({ proxyUrls: [PROXY], policy, store: noteGrants(store, starts) }));
    await Promise.all(
      pools.map(async (exits) => {
        for (let i = 0; i < 5; i++) await (await exits.acquire()).settle({ kind: "answered" });
      }),
    );
    expect(starts).toHaveLength(10);
    starts.sort((a, b) => a - b);
    // The n-th start, whichever pool claimed it, was granted no earlier than its slot n × 100 ms after the first:
    // a start late for its slot keeps the slot's time, so two may fall closer than 100 ms, but none runs ahead
    // (Redis's clock, moved onto ours, may differ by a ms or two).
    const ahead = starts.map((at, n) => starts[0]! + n * 100 - at);
    expect(Math.max(...ahead)).toBeLessThanOrEqual(3);
  });

  it.skipIf(skip)("keeps two hosts' direct routes apart, and names no credentials", async () => {
    const [storeA, storeB] = await pair();
    const hostA = new ExitPool({ proxyUrls: [], policy: POLICY, store: storeA, hostName: "host-a" });
    const hostB = new ExitPool({ proxyUrls: [], policy: POLICY, store: storeB, hostName: "host-b" });
    await (await hostA.acquire()).settle({ kind: "blocked", retryAfterMs: 60_000 });
    const lease = await hostB.acquire({ maxWaitMs: 50 });
    expect(lease.exit.key).toBe("direct:host-b");
    await lease.settle({ kind: "answered" });
    await expect(hostA.acquire({ maxWaitMs: 50 })).rejects.toBeInstanceOf(ExitsResting);

    const proxied = new ExitPool({ proxyUrls: [PROXY], store: storeA });
    expect(proxied.exits[0]!.key).toMatch(/^http:\/\/127\.0\.0\.1:3128#user-[0-9a-f]{10}$/);
    expect(JSON.stringify(proxied.snapshot())).not.toMatch(/s3cret|user:/);
  });
});

describe.skipIf(!redisUp)("the fleet's keys", () => {
  it("expire: an exit's hash outlives its last rest by an hour, no more", async () => {
    const prefix = `test-exits-ttl-${process.pid}:`;
    const redis = await connectExitRedis({ url: REDIS_URL, deadlineMs: 1_000 });
    connections.push(redis);
    const exits = new ExitPool({ proxyUrls: [], policy: POLICY, store: new RedisExitStore({ redis, prefix }), hostName: "ttl" });
    await (await exits.acquire()).settle({ kind: "blocked", retryAfterMs: 10_000 });
    const ttl = await redis.pttl(`${prefix}exit:direct:ttl`);
    expect(ttl).toBeGreaterThan(3_600_000);
    expect(ttl).toBeLessThanOrEqual(3_610_000);
    await redis.del(`${prefix}exit:direct:ttl`);
  });
});

describe.skipIf(!redisUp)("the fleet's clock", () => {
  /**
   * A store whose process clock runs `offset` ms off, and whose next read's answer is taken up `lateMs` ms late
   * (a busy host). `roundTrips` holds each read's round trip as the store saw it.
   */
  async function skewedStore(prefix: string) {
    const redis = await connectExitRedis({ url: REDIS_URL, deadlineMs: 1_000 });
    connections.push(redis);
    const clock = { offset: 0, lateMs: 0, calls: 0, asked: 0, roundTrips: [] as number[] };
    const now = () => {
      // Every second call is a read's answer (the first its question): the late one waits before looking at the clock.
      const answer = ++clock.calls % 2 === 0;
      if (answer && clock.lateMs > 0) {
        const until = Date.now() + clock.lateMs;
        while (Date.now() < until);
        clock.lateMs = 0;
      }
      const at = Date.now();
      if (answer) clock.roundTrips.push(at - clock.asked);
      else clock.asked = at;
      return at + clock.offset;
    };
    return { store: new RedisExitStore({ redis, prefix, now }), clock, redis };
  }

  it("is read from the quickest round trip: an answer taken up late does not move a cool-down's end", async () => {
    const prefix = `test-exits-clock-${process.pid}:`;
    const writer = await skewedStore(prefix);
    const key = "direct:clock";
    await writer.store.settle(key, Date.now(), Date.now(), { kind: "blocked", retryAfterMs: 60_000 }, { ...DEFAULT_EXIT_POLICY, ...POLICY }, 0);
    const reader = await skewedStore(prefix);
    const quick = (await reader.store.read(key)).coolingUntil;
    reader.clock.lateMs = 200;
    const late = (await reader.store.read(key)).coolingUntil;
    const [quickTrip, lateTrip] = reader.clock.roundTrips;
    expect(lateTrip).toBeGreaterThan(quickTrip!);
    // The quicker estimate is kept: the end does not move (estimated from the late answer, it would by ~100 ms).
    expect(late).toBe(quick);
    // This process's clock set 20 s ahead: past the estimate's window, the end follows it, within half of each
    // estimate's own round trip (what a busy host adds to a read).
    reader.clock.offset = 20_000;
    const ahead = (await reader.store.read(key)).coolingUntil;
    const aheadTrip = reader.clock.roundTrips[2]!;
    expect(Math.abs(ahead - quick - 20_000)).toBeLessThanOrEqual(Math.ceil((quickTrip! + aheadTrip) / 2) + 1);
    await writer.redis.del(`${prefix}exit:${key}`);
  });
});

describe("falling back", () => {
  it("with Redis unreachable, fetches go on through the host's exits.db, said in one log line", async () => {
    const dir = tempDir();
    const redis = await connectExitRedis({ url: `redis://127.0.0.1:${await closedPort()}`, deadlineMs: 200, readyWithinMs: 300 });
    connections.push(redis);
    const lines: string[] = [];
    const log = { info: (line: string) => lines.push(`info ${line}`), warn: (line: string) => lines.push(`warn ${line}`) };
    const opened = openExitStore({ hostPath: join(dir, "exits.db"), redis: { redis, prefix: "unused:" }, log });
    closers.push(opened.close);
    expect(opened.scope).toBe("fleet");
    const exits = new ExitPool({ proxyUrls: [PROXY], policy: POLICY, store: opened.store });
    for (let i = 0; i < 3; i++) await (await exits.acquire({ maxWaitMs: 100 })).settle({ kind: "answered" });
    await (await exits.acquire({ maxWaitMs: 100 })).settle({ kind: "blocked", retryAfterMs: 30_000 });
    expect(lines).toEqual(["warn redis unreachable for the exit state: kept in this host's exits.db until it is back"]);

    // The block went to the host's file: another process of this host (no Redis) sees the exit cooling.
    const host = SqliteExitStore.open(join(dir, "exits.db"));
    closers.push(() => host.close());
    const neighbour = new ExitPool({ proxyUrls: [PROXY], policy: POLICY, store: host });
    await expect(neighbour.acquire({ maxWaitMs: 100 })).rejects.toMatchObject({ code: "rate_limited" });
  });

  it("a host file that cannot be opened leaves this process's memory, said in one log line", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "exits.db"), "not a database, and more than a header's worth of bytes ".repeat(10));
    const lines: string[] = [];
    const opened = openExitStore({ hostPath: join(dir, "exits.db"), log: { info: (l) => lines.push(l), warn: (l) => lines.push(l) } });
    expect(opened.scope).toBe("process");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^exit state kept in this process's memory: .*exits\.db cannot be opened \(.*\); the server and the pipeline of this host do not share it$/);
    const exits = new ExitPool({ proxyUrls: [], store: opened.store });
    await (await exits.acquire()).settle({ kind: "answered" });
  });
});

describe.skipIf(!redisServer)("Redis going away while in use", () => {
  it("stopped, then frozen past its deadline: no acquire or settle fails, the host's file holds the blocks, one line each way", async () => {
    const own = await ownRedis();
    await own.start();
    try {
      const dir = tempDir();
      const redis = await connectExitRedis({ url: own.url, deadlineMs: 200 });
      connections.push(redis);
      const lines: string[] = [];
      const opened = openExitStore({ hostPath: join(dir, "exits.db"), redis: { redis, prefix: "t:" }, log: { info: (l) => lines.push(l), warn: (l) => lines.push(l) } });
      closers.push(opened.close);
      const exits = new ExitPool({ proxyUrls: [PROXY], policy: POLICY, store: opened.store });
      const send = async (outcome: "answered" | "blocked") =>
        (await exits.acquire({ maxWaitMs: 3_000 })).settle(outcome === "blocked" ? { kind: "blocked", retryAfterMs: 300 } : { kind: "answered" });
      await send("answered");
      expect(lines).toEqual([]);

      await own.stop();
      await send("answered");
      await send("blocked");
      // The block is in the host's file: a neighbour without Redis sees it.
      const host = SqliteExitStore.open(join(dir, "exits.db"));
      closers.push(() => host.close());
      expect((await host.read(exits.exits[0]!.key)).coolingUntil).toBeGreaterThan(Date.now());
      await send("answered"); // after the rest

      await own.start();
      await until(() => redis.status === "ready", 10_000, "the connection to come back");
      await new Promise((resolve) => setTimeout(resolve, 5_100)); // the fallback asks Redis again after its pause
      await send("answered");
      own.pause();
      const frozenAt = Date.now();
      await send("answered");
      await send("answered");
      expect(Date.now() - frozenAt).toBeLessThan(2_000);
      own.resume();
      expect(lines[0]).toMatch(/^redis unreachable for the exit state: kept in this host's exits\.db until it is back/);
      expect(lines.filter((l) => l === "exit state shared through redis again").length).toBeGreaterThanOrEqual(1);
      expect(lines.filter((l) => l.startsWith("redis unreachable")).length).toBe(2);
    } finally {
      own.resume();
      await own.stop();
    }
  }, 40_000);
});
