/**
 * The messages between the primary and its workers (WORKERS > 1), over
 * node:cluster's IPC channel. A worker asks (`Ask`, with an id) and the
 * primary answers with that id; a claim answered `follower` gets a second
 * answer with the same id once the fetch it waits for has an outcome. A
 * rate answer may carry a lease of the key's count, which the primary may
 * recall and the worker then gives back (rate-leases.ts).
 */
import type { FetchOutcome, SharedYouTubeError } from "../live/fetch-coordination.js";
import type { RateGrant, OrdinalRange } from "./rate-leases.js";

/** Marks this service's messages apart from node's own cluster traffic. */
export const CHANNEL = "transcript-service";

export type Ask =
  | { op: "rate"; keyId: string; nowMs: number }
  | { op: "claim"; key: string }
  | { op: "settle"; key: string; outcome: FetchOutcome }
  | { op: "negative-get"; videoId: string; lang: string }
  | { op: "negative-remember"; videoId: string; lang: string; error: SharedYouTubeError };

export type Answer =
  | ({ op: "rate" } & RateGrant)
  | { op: "claim"; role: "leader" | "follower" }
  | { op: "outcome"; outcome: FetchOutcome }
  | { op: "settle" }
  | { op: "negative-get"; error: SharedYouTubeError | null }
  | { op: "negative-remember"; remembered: boolean };

/**
 * A worker to the primary. `listening`: the worker takes connections (and
 * how many API keys it found usable, for the primary's one warning when none).
 * `returned`: what it had not taken of a recalled lease. `closed`: that many
 * of the connections the primary gave it have closed (balancer.ts).
 * `stopping`: it takes no more connections (a graceful stop has begun).
 */
export type WorkerMessage =
  | { channel: typeof CHANNEL; id: number; ask: Ask }
  | { channel: typeof CHANNEL; listening: { dataset: string; builtAt: string; usableKeys: number } }
  | { channel: typeof CHANNEL; returned: { keyId: string; window: number; ranges: OrdinalRange[] } }
  | { channel: typeof CHANNEL; closed: number }
  | { channel: typeof CHANNEL; stopping: true };

/**
 * The primary to a worker: an answer, a recall of the leases it holds of a
 * key's window, or a connection the primary accepted, sent with the
 * message as its handle.
 */
export type PrimaryMessage =
  | { channel: typeof CHANNEL; id: number; answer: Answer }
  | { channel: typeof CHANNEL; recall: { keyId: string; window: number } }
  | { channel: typeof CHANNEL; connection: true };

export function isServiceMessage(message: unknown): message is { channel: typeof CHANNEL } {
  return typeof message === "object" && message !== null && (message as { channel?: unknown }).channel === CHANNEL;
}
