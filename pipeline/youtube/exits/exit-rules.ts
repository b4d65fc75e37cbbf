/**
 * The rules of one exit's state as pure functions of its record, so every
 * store applies the same ones (the memory store directly; a shared store in
 * one atomic read-modify-write).
 */
import { coolDownDelay, probeDelay, spacingMs, type ExitPolicy } from "./exit-policy.js";
import type { ClaimResult, ExitOutcome, ExitRecord } from "./exit-state-store.js";

/** Claims a request start at `now` on `record` (changed in place when granted). */
export function claimOn(record: ExitRecord, now: number, policy: ExitPolicy): ClaimResult {
  let probe = false;
  if (record.dead) {
    if (record.probing || now < record.deadUntil) return { granted: false, readyAt: record.probing ? now + policy.probeAfterMs : record.deadUntil, reason: "dead" };
    probe = true;
  }
  if (now < record.coolingUntil) return { granted: false, readyAt: record.coolingUntil, reason: "cooling" };
  const spacing = spacingMs(policy);
  const paced = record.lastSentAt + spacing;
  if (record.sent > 0 && now < paced) return { granted: false, readyAt: paced, reason: "pacing" };
  // A start a little late for its slot (a timer that fired late on a busy host) keeps the slot's time, so
  // lateness does not add up to a slower pace; a start after a pause counts from now, so a pause earns no burst.
  record.lastSentAt = record.sent > 0 && now - paced < spacing ? paced : now;
  record.sent++;
  if (probe) record.probing = true;
  return { granted: true, probe };
}

/** Records the outcome of a request started at `sentAt` on `record` (in place). */
export function settleOn(record: ExitRecord, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): void {
  switch (outcome.kind) {
    case "answered":
      record.failuresInRow = 0;
      if (record.dead) reviveOn(record);
      // A request sent before the latest block was known says nothing about whether the block is over.
      if (sentAt > record.lastBlockedAt) record.blocksInRow = 0;
      return;
    case "blocked": {
      record.blocked++;
      record.failuresInRow = 0;
      if (record.dead) reviveOn(record);
      // Requests sent before a block was known that then come back blocked too are the same block, not one more in a row.
      if (sentAt > record.lastBlockedAt) record.blocksInRow++;
      record.lastBlockedAt = now;
      const rest = outcome.retryAfterMs ?? coolDownDelay(record.blocksInRow, policy, random);
      record.coolingUntil = Math.max(record.coolingUntil, now + rest);
      return;
    }
    case "failed":
      record.failed++;
      record.failuresInRow++;
      if (record.probing || (!record.dead && record.failuresInRow >= policy.deadAfterFailures)) {
        record.dead = true;
        record.probing = false;
        record.deaths++;
        record.deadUntil = now + probeDelay(record.deaths, policy);
      }
      return;
    case "abandoned":
      // A probe given up by its caller leaves the exit due for another.
      record.probing = false;
      return;
  }
}

function reviveOn(record: ExitRecord): void {
  record.dead = false;
  record.probing = false;
  record.deaths = 0;
  record.deadUntil = 0;
}
