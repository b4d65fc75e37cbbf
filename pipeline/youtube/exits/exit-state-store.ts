/**
 * Where the exits' state lives: behind this interface so that one process
 * can keep it in memory (memory-exit-store.ts) and a host or a fleet can
 * share it (the live server and the pipeline, replicas through Redis), each
 * operation atomic on its own. In-flight counts stay with each process.
 */
import type { ExitPolicy } from "./exit-policy.js";

export interface ExitRecord {
  /**
   * Requests started through the exit, blocked, and failed (every process sharing the store). The shared
   * stores leave out starts of an unpaced exit that was neither resting nor probed (nothing reads them);
   * a pool reports its own counts.
   */
  sent: number;
  blocked: number;
  failed: number;
  /** Sends nothing before this instant (ms since the epoch) after a block; 0 when not cooling. */
  coolingUntil: number;
  /** Blocks since the last answer that was not one. */
  blocksInRow: number;
  /** Failures since the last request that got an answer. */
  failuresInRow: number;
  /** Taken out: probed (one request) from `deadUntil` on. */
  dead: boolean;
  deadUntil: number;
  /** Times it was found dead in a row (the probe wait doubles with each). */
  deaths: number;
  /** A probe is in flight: nothing else goes out until it is settled. */
  probing: boolean;
  /** Start of the exit's latest request (pacing). */
  lastSentAt: number;
  /** When the latest block was known (its answer arrived). */
  lastBlockedAt: number;
}

/** `record`: the exit's record after the claim, when the store has it at hand (saves the pool a `read`). */
export type ClaimResult = ({ granted: true; probe: boolean } | { granted: false; readyAt: number; reason: "cooling" | "pacing" | "dead" }) & { record?: ExitRecord };

/** What one request through an exit came to. */
export type ExitOutcome =
  /** An answer that was not a block (whatever the video's outcome). */
  | { kind: "answered" }
  /** YouTube refused the exit; `retryAfterMs` when it said how long. */
  | { kind: "blocked"; retryAfterMs?: number }
  /** No answer: connection refused or cut, a timeout. */
  | { kind: "failed" }
  /** Abandoned by the caller: says nothing about the exit. */
  | { kind: "abandoned" };

export interface ExitStateStore {
  /**
   * Starts a request through exit `key` at `now` when it is neither cooling,
   * dead (unless the probe is due: then this is the probe), nor paced past `now`;
   * otherwise says from when it could be.
   */
  claim(key: string, now: number, policy: ExitPolicy): Promise<ClaimResult>;
  /** Records the outcome of a request started (claimed) at `sentAt`; `random` in [0, 1) jitters a cool-down. */
  settle(key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): Promise<ExitRecord>;
  read(key: string): Promise<ExitRecord>;
}

export function emptyRecord(): ExitRecord {
  return { sent: 0, blocked: 0, failed: 0, coolingUntil: 0, blocksInRow: 0, failuresInRow: 0, dead: false, deadUntil: 0, deaths: 0, probing: false, lastSentAt: 0, lastBlockedAt: 0 };
}
