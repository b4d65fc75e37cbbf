/**
 * Exit state shared by a fleet through Redis (REDIS_URL): every replica's
 * live fetcher, every pipeline run and every fetch worker that sends through
 * the same proxy sees the same pace, cool-down and liveness for it.
 *
 * An exit is one hash, `<prefix>exit:<key>` with the record (JSON) and a
 * version. A change is a read, the rules of exit-rules.ts applied here, and a
 * compare-and-set script that writes only if the version is still the one
 * read (retried when another process got there first), so the rules live in
 * one place for every store. Times are Redis's: each read returns Redis's
 * clock and the record is moved onto this process's clock and back (by the
 * offset of the quickest recent round trip), so hosts whose clocks disagree
 * still agree on when a cool-down ends. Each hash
 * expires an hour after the last rest it records, so a fleet that is gone
 * leaves nothing behind. As in the host store, what would change nothing is
 * not written.
 */
import type { Redis } from "ioredis";
import { spacingMs, type ExitPolicy } from "./exit-policy.js";
import { claimOn, settleOn } from "./exit-rules.js";
import { emptyRecord, type ClaimResult, type ExitOutcome, type ExitRecord, type ExitStateStore } from "./exit-state-store.js";

/** KEYS[1]: the exit. Returns {record or '', version or '0', seconds, microseconds} with Redis's clock. */
const READ = `
local r = redis.call('HMGET', KEYS[1], 'r', 'v')
local t = redis.call('TIME')
return {r[1] or '', r[2] or '0', t[1], t[2]}
`;

/** KEYS[1]: the exit; ARGV: version read, new record, ttl ms. Writes and returns 1 if the version is unchanged, else 0. */
const WRITE_IF_UNCHANGED = `
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', tostring(tonumber(v) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

const READ_COMMAND = "transcriptServiceExitRead";
const WRITE_COMMAND = "transcriptServiceExitWrite";

/** How long an exit's hash outlives the end of the last rest it records. */
const KEEP_MS = 3_600_000;
/** Writes lost to other processes in a row before a change gives up (each loss means another change went in). */
const MAX_ATTEMPTS = 50;

/**
 * How long the clock estimate of the quickest round trip is kept before any later one replaces it: clocks
 * drift apart slowly, but one that is set (NTP) should be followed within seconds.
 */
const CLOCK_ESTIMATE_MS = 10_000;

/** The record's instants (ms since the epoch; 0 when unset), moved between clocks. */
const INSTANTS = ["coolingUntil", "deadUntil", "lastSentAt", "lastBlockedAt"] as const;

interface Read {
  record: ExitRecord;
  version: string;
  /** Redis's clock minus this process's, in ms. */
  shift: number;
}

type ExitCommands = {
  transcriptServiceExitRead(key: string): Promise<[string, string, string, string]>;
  transcriptServiceExitWrite(key: string, version: string, record: string, ttlMs: number): Promise<number>;
};

export interface RedisExitStoreOptions {
  redis: Redis;
  /** Prefix of every key the service writes (REDIS_KEY_PREFIX). */
  prefix: string;
  /** This process's clock, to move Redis's times onto. Default Date.now. */
  now?: () => number;
}

export class RedisExitStore implements ExitStateStore {
  readonly #redis: Redis & ExitCommands;
  readonly #prefix: string;
  readonly #now: () => number;
  /** Redis's clock minus this process's, from the quickest round trip of late (`CLOCK_ESTIMATE_MS`), with when it was read. */
  #clock: { shift: number; roundTrip: number; at: number } | undefined;

  constructor(options: RedisExitStoreOptions) {
    const { redis } = options;
    redis.defineCommand(READ_COMMAND, { numberOfKeys: 1, lua: READ });
    redis.defineCommand(WRITE_COMMAND, { numberOfKeys: 1, lua: WRITE_IF_UNCHANGED });
    this.#redis = redis as Redis & ExitCommands;
    this.#prefix = options.prefix;
    this.#now = options.now ?? Date.now;
  }

  async claim(key: string, now: number, policy: ExitPolicy): Promise<ClaimResult> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await this.#read(key);
      const { record } = read;
      const result = claimOn(record, now + read.shift, policy);
      if (!result.granted) return { ...result, readyAt: result.readyAt - read.shift, record: toLocal(record, read.shift) };
      // An unpaced start that probes nothing changes nothing another process reads.
      if ((!result.probe && spacingMs(policy) === 0) || (await this.#write(key, read, record))) return { ...result, record: toLocal(record, read.shift) };
    }
    throw new Error(`The exit state in Redis kept changing under ${MAX_ATTEMPTS} claims in a row`);
  }

  async settle(key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): Promise<ExitRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await this.#read(key);
      const { record } = read;
      const before = JSON.stringify(record);
      settleOn(record, sentAt + read.shift, now + read.shift, outcome, policy, random);
      if (JSON.stringify(record) === before || (await this.#write(key, read, record))) return toLocal(record, read.shift);
    }
    throw new Error(`The exit state in Redis kept changing under ${MAX_ATTEMPTS} settles in a row`);
  }

  async read(key: string): Promise<ExitRecord> {
    const read = await this.#read(key);
    return toLocal(read.record, read.shift);
  }

  async #read(key: string): Promise<Read> {
    const asked = this.#now();
    const [json, version, seconds, micros] = await this.#redis.transcriptServiceExitRead(this.#key(key));
    const answered = this.#now();
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const record = json === "" ? emptyRecord() : { ...emptyRecord(), ...(JSON.parse(json) as Partial<ExitRecord>) };
    return { record, version, shift: this.#shift(redisNow, asked, answered) };
  }

  /**
   * Redis's clock minus this process's. Redis read its clock somewhere within the round trip, so half of it
   * is the estimate's error: a round trip a busy host stretched would move the pace by as much, so the
   * quickest of late is kept.
   */
  #shift(redisNow: number, asked: number, answered: number): number {
    const roundTrip = answered - asked;
    const best = this.#clock;
    // A negative round trip is this process's clock set back mid-read: no estimate, unless there is none yet.
    if (best === undefined || (roundTrip >= 0 && (roundTrip <= best.roundTrip || Math.abs(answered - best.at) > CLOCK_ESTIMATE_MS))) {
      this.#clock = { shift: redisNow - Math.round((asked + answered) / 2), roundTrip, at: answered };
    }
    return this.#clock!.shift;
  }

  /** Writes `record` (on Redis's clock) if the exit is still at the version read; says whether it did. */
  async #write(key: string, read: Read, record: ExitRecord): Promise<boolean> {
    const redisNow = this.#now() + read.shift;
    const restEnds = Math.max(redisNow, record.coolingUntil, record.dead ? record.deadUntil : 0);
    const written = await this.#redis.transcriptServiceExitWrite(this.#key(key), read.version, JSON.stringify(record), restEnds - redisNow + KEEP_MS);
    return written === 1;
  }

  #key(key: string): string {
    return `${this.#prefix}exit:${key}`;
  }
}

/** The record with its instants moved from Redis's clock onto this process's. */
function toLocal(record: ExitRecord, shift: number): ExitRecord {
  const local = { ...record };
  for (const name of INSTANTS) if (local[name] !== 0) local[name] -= shift;
  return local;
}
