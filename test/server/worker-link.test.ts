/**
 * A worker's side of the IPC channel (server/cluster/worker-link.ts) over a
 * stand-in for node:cluster's channel: an answer carrying a lease and a
 * recall of it can arrive in one read, emitted one after the other before
 * any promise job runs. The recall must still give that lease back, or its
 * requests are lost for the window (fewer than the limit pass).
 */
import { expect, test } from "vitest";
import { CHANNEL, type WorkerMessage } from "../../server/cluster/messages.js";
import { connectWorker } from "../../server/cluster/worker-link.js";
import { WINDOW_MS } from "../../server/rate-limit/memory-rate-limiter.js";
import { PrimaryChannel } from "./helpers/primary-channel.js";

const NOW = 1_800_000_015_000;
const WINDOW = Math.floor(NOW / WINDOW_MS);

test("a recall arriving right behind the answer that leased the ordinals gives them back whole", async () => {
  const channel = new PrimaryChannel();
  const link = connectWorker(channel.asProcess());
  const decision = link.rateLimiter.consume("k", NOW);
  const asked = channel.sent.find((m): m is Extract<WorkerMessage, { ask: unknown }> => "ask" in m)!;
  expect(asked.ask).toEqual({ op: "rate", keyId: "k", nowMs: NOW });
  const resetAt = ((WINDOW + 1) * WINDOW_MS) / 1000;
  // Both in one turn, as when the two messages come in one read of the channel.
  channel.deliver({ channel: CHANNEL, id: asked.id, answer: { op: "rate", decision: { allowed: true, limit: 100, remaining: 99, resetAt }, lease: { window: WINDOW, ranges: [[2, 10]] } } });
  channel.deliver({ channel: CHANNEL, recall: { keyId: "k", window: WINDOW } });
  expect(await decision).toEqual({ allowed: true, limit: 100, remaining: 99, resetAt });
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  const returned = channel.sent.filter((m): m is Extract<WorkerMessage, { returned: unknown }> => "returned" in m);
  expect(returned).toEqual([{ channel: CHANNEL, returned: { keyId: "k", window: WINDOW, ranges: [[2, 10]] } }]);
  // Given back, the lease is no longer this worker's to take from: the next request asks the primary.
  void link.rateLimiter.consume("k", NOW);
  expect(channel.sent.filter((m) => "ask" in m)).toHaveLength(2);
  link.close();
});

test("a recall of a key this worker holds nothing of is answered with nothing", async () => {
  const channel = new PrimaryChannel();
  const link = connectWorker(channel.asProcess());
  channel.deliver({ channel: CHANNEL, recall: { keyId: "other", window: WINDOW } });
  await new Promise((resolve) => setImmediate(resolve));
  expect(channel.sent).toEqual([{ channel: CHANNEL, returned: { keyId: "other", window: WINDOW, ranges: [] } }]);
  link.close();
});
