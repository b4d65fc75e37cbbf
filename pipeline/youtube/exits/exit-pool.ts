/**
 * The exits of one client: each proxy URL, or the direct route when there is
 * none, with its own pacing, cool-down and liveness (exit-rules.ts) kept in
 * an `ExitStateStore`. `acquire` hands out the least recently used exit that
 * may send now, or waits until one may: for a request slot (in flight per
 * exit), the next pacing slot, the end of a cool-down, or a dead exit's probe.
 * A caller with `maxWaitMs` (a live request) is refused instead of waiting longer.
 * With a shared store (the host's, or the fleet's in Redis), a block or a
 * pace one process meets holds for every process using the same exit.
 */
import type { YouTubeError } from "../errors.js";
import { REAL_CLOCK, type ExitClock } from "./exit-clock.js";
import { directExitKey, proxyExitKey } from "./exit-key.js";
import { DEFAULT_EXIT_POLICY, validatePolicy, type ExitPolicy } from "./exit-policy.js";
import { ExitsResting } from "./exits-resting.js";
import { emptyRecord, type ExitOutcome, type ExitRecord, type ExitStateStore } from "./exit-state-store.js";
import { MemoryExitStore } from "./memory-exit-store.js";

export interface Exit {
  /** Stable key in the state store and /metrics, without credentials: the proxy URL (exit-key.ts), or `direct:<host name>`. */
  readonly key: string;
  /** The proxy to send through; undefined for the direct route. */
  readonly proxyUrl: string | undefined;
  /** For people and logs: `direct`, or `proxy N (host:port)` without credentials. */
  readonly label: string;
}

export interface ExitPoolOptions {
  /** One exit per proxy URL; none: a single direct exit. */
  proxyUrls: readonly string[];
  policy?: Partial<ExitPolicy>;
  /** Default: this process's memory. */
  store?: ExitStateStore;
  clock?: ExitClock;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Names the direct route's key (`direct:<name>`). Default this machine's host name. */
  hostName?: string;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** Longest wait for an exit, in ms; past it a `rate_limited` (every exit cooling) or `connection_failed` (every exit out) error. Default: no limit. */
  maxWaitMs?: number;
}

export interface ExitLease {
  readonly exit: Exit;
  /** Whether this request probes an exit that was taken out. */
  readonly probe: boolean;
  /** Records what the request came to and frees its slot; once only, later calls are ignored. */
  settle(outcome: ExitOutcome): Promise<void>;
}

export type ExitCondition = "ready" | "cooling" | "dead" | "busy";

export interface ExitView {
  label: string;
  /** The exit's key (Exit.key): no credentials. */
  key: string;
  condition: ExitCondition;
  inFlight: number;
  /** Requests this pool sent through the exit, and how many were blocked or failed (other processes sharing the store count their own). */
  sent: number;
  blocked: number;
  failed: number;
  /** Until when it is cooling (ms since the epoch), when it is. */
  coolingUntil?: number;
  /** When a dead exit is probed next. */
  probeAt?: number;
}

export interface ExitPoolSnapshot {
  at: number;
  exits: ExitView[];
  /** Callers waiting for an exit. */
  waiting: number;
  /** Whether no exit can send now because every one is cooling or out. */
  allResting: boolean;
  /** When the first resting exit may send again, while all rest. */
  nextReadyAt?: number;
}

interface ExitSlot {
  exit: Exit;
  index: number;
  inFlight: number;
  lastStarted: number;
  /** This pool's own counts. */
  sent: number;
  blocked: number;
  failed: number;
  /** The store's record as this process last saw it. */
  seen: ExitRecord;
}

export class ExitPool {
  readonly exits: readonly Exit[];
  readonly policy: ExitPolicy;
  readonly #slots: ExitSlot[];
  readonly #store: ExitStateStore;
  readonly #clock: ExitClock;
  readonly #random: () => number;
  #waiting = 0;
  #wake: { promise: Promise<void>; resolve: () => void } | undefined;
  #starts = 0;

  constructor(options: ExitPoolOptions) {
    this.policy = validatePolicy({ ...DEFAULT_EXIT_POLICY, ...options.policy });
    this.exits =
      options.proxyUrls.length === 0 ? [{ key: directExitKey(options.hostName), proxyUrl: undefined, label: "direct" }] : options.proxyUrls.map(proxyExit);
    this.#slots = this.exits.map((exit, index) => ({ exit, index, inFlight: 0, lastStarted: -1, sent: 0, blocked: 0, failed: 0, seen: emptyRecord() }));
    this.#store = options.store ?? new MemoryExitStore();
    this.#clock = options.clock ?? REAL_CLOCK;
    this.#random = options.random ?? Math.random;
  }

  get clock(): ExitClock {
    return this.#clock;
  }

  async acquire(options: AcquireOptions = {}): Promise<ExitLease> {
    const { signal } = options;
    const maxWaitMs = options.maxWaitMs ?? Infinity;
    const started = this.#clock.now();
    this.#waiting++;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const wake = this.#wakeSignal();
        let readyAt = Infinity;
        let resting: "cooling" | "dead" | undefined;
        for (const slot of this.#byLeastRecentUse()) {
          if (slot.inFlight >= (slot.seen.dead ? 1 : this.policy.maxInFlight)) continue;
          slot.inFlight++; // held while the store answers, so no other caller of this process overfills the exit
          const now = this.#clock.now();
          let claim;
          try {
            claim = await this.#store.claim(slot.exit.key, now, this.policy);
          } catch (error) {
            slot.inFlight--;
            throw error;
          }
          if (claim.granted) {
            slot.lastStarted = ++this.#starts;
            slot.sent++;
            try {
              slot.seen = claim.record ?? (await this.#store.read(slot.exit.key));
            } catch {
              // The request is claimed: a view not refreshed is no reason to drop it.
            }
            return this.#lease(slot, now, claim.probe);
          }
          slot.inFlight--;
          slot.seen = claim.record ?? (await this.#store.read(slot.exit.key));
          if (claim.readyAt < readyAt) readyAt = claim.readyAt;
          if (claim.reason !== "pacing") resting = resting === "cooling" || claim.reason === "cooling" ? "cooling" : "dead";
        }
        const now = this.#clock.now();
        const waitMs = Math.max(0, readyAt - now);
        if (readyAt !== Infinity && now - started + waitMs > maxWaitMs) throw this.#unavailable(resting, waitMs);
        await this.#waitFor(waitMs, wake, signal);
      }
    } finally {
      this.#waiting--;
    }
  }

  /** Reads every exit's record from the store again, so `snapshot` shows what other processes sharing it saw too. */
  async refresh(): Promise<void> {
    await Promise.all(
      this.#slots.map(async (slot) => {
        slot.seen = await this.#store.read(slot.exit.key);
      }),
    );
  }

  /** The exits as this process last saw them, with what would be said of a wait. */
  snapshot(): ExitPoolSnapshot {
    const at = this.#clock.now();
    const exits = this.#slots.map((slot): ExitView => {
      const seen = slot.seen;
      const condition: ExitCondition = seen.dead ? "dead" : seen.coolingUntil > at ? "cooling" : slot.inFlight >= this.policy.maxInFlight ? "busy" : "ready";
      return {
        label: slot.exit.label,
        key: slot.exit.key,
        condition,
        inFlight: slot.inFlight,
        sent: slot.sent,
        blocked: slot.blocked,
        failed: slot.failed,
        ...(condition === "cooling" ? { coolingUntil: seen.coolingUntil } : {}),
        ...(condition === "dead" ? { probeAt: seen.deadUntil } : {}),
      };
    });
    const allResting = exits.every((e) => e.condition === "cooling" || e.condition === "dead");
    const next = Math.min(...exits.map((e) => e.coolingUntil ?? e.probeAt ?? Infinity));
    return { at, exits, waiting: this.#waiting, allResting, ...(allResting && Number.isFinite(next) ? { nextReadyAt: next } : {}) };
  }

  #lease(slot: ExitSlot, sentAt: number, probe: boolean): ExitLease {
    let settled = false;
    return {
      exit: slot.exit,
      probe,
      settle: async (outcome) => {
        if (settled) return;
        settled = true;
        if (outcome.kind === "blocked") slot.blocked++;
        else if (outcome.kind === "failed") slot.failed++;
        try {
          slot.seen = await this.#store.settle(slot.exit.key, sentAt, this.#clock.now(), outcome, this.policy, this.#random());
        } finally {
          slot.inFlight--;
          this.#notify();
        }
      },
    };
  }

  /** Exits in the order they should be tried: least recently started first, then in listed order. */
  #byLeastRecentUse(): ExitSlot[] {
    return [...this.#slots].sort((a, b) => a.lastStarted - b.lastStarted || a.index - b.index);
  }

  #wakeSignal(): Promise<void> {
    if (!this.#wake) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#wake = { promise, resolve };
    }
    return this.#wake.promise;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.resolve();
  }

  /** Sleeps `ms` (forever when Infinity), cut short when a request of this pool settles. */
  async #waitFor(ms: number, wake: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const sleeping = Number.isFinite(ms) ? this.#clock.sleep(ms, both) : new Promise<void>((_, reject) => both.addEventListener("abort", () => reject(both.reason), { once: true }));
    try {
      await Promise.race([sleeping, wake]);
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
    } finally {
      stop.abort();
      sleeping.catch(() => undefined);
    }
  }

  #unavailable(resting: "cooling" | "dead" | undefined, waitMs: number): YouTubeError {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    const count = this.exits.length === 1 ? "The exit" : `Every one of the ${this.exits.length} exits`;
    if (resting === "dead") {
      return new ExitsResting("connection_failed", `${count} to YouTube is out after failing; the next try is in ${retryAfterSeconds} s`, {
        usedProxy: this.exits[0]?.proxyUrl !== undefined,
        retryAfterSeconds,
      });
    }
    const why = resting === "cooling" ? "is resting after a block" : "is at its pace";
    return new ExitsResting("rate_limited", `${count} to YouTube ${why}; the next is free in ${retryAfterSeconds} s`, {
      usedProxy: this.exits[0]?.proxyUrl !== undefined,
      retryAfterSeconds,
    });
  }
}

function proxyExit(proxyUrl: string, index: number): Exit {
  let where = "";
  try {
    where = ` (${new URL(proxyUrl).host})`;
  } catch {
    // validated by the client; a label without the host is still a label
  }
  return { key: proxyExitKey(proxyUrl), proxyUrl, label: `proxy ${index + 1}${where}` };
}
