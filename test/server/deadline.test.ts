/** A request's deadline as a signal: it aborts at the deadline, or with the client's reason when the client leaves first. */
import { describe, expect, it } from "vitest";
import { DeadlineExceeded, isDeadlineExceeded, untilDeadline } from "../../server/http/deadline.js";

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

describe("untilDeadline", () => {
  it("aborts with DeadlineExceeded at the deadline, not before", async () => {
    const client = new AbortController();
    const started = performance.now();
    const wait = untilDeadline(client.signal, started + 150);
    expect(wait.signal.aborted).toBe(false);
    const reason = await aborted(wait.signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(isDeadlineExceeded(reason)).toBe(true);
    expect(reason).toBeInstanceOf(DeadlineExceeded);
    wait.clear();
  });

  it("aborts with the client's reason when the client leaves first", async () => {
    const client = new AbortController();
    const wait = untilDeadline(client.signal, performance.now() + 60_000);
    const gone = new Error("client closed the connection");
    client.abort(gone);
    expect(wait.signal.aborted).toBe(true);
    expect(wait.signal.reason).toBe(gone);
    expect(isDeadlineExceeded(wait.signal.reason)).toBe(false);
  });

  it("is aborted at once for a deadline already past or a client already gone; never for an infinite deadline", async () => {
    expect(isDeadlineExceeded(untilDeadline(new AbortController().signal, performance.now() - 1).signal.reason)).toBe(true);
    const gone = new AbortController();
    gone.abort(new Error("gone"));
    expect(untilDeadline(gone.signal, Infinity).signal.reason).toBe(gone.signal.reason);
    const endless = untilDeadline(new AbortController().signal, Infinity);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(endless.signal.aborted).toBe(false);
    endless.clear();
  });

  it("clear() stops the deadline and stops following the client", async () => {
    const client = new AbortController();
    const wait = untilDeadline(client.signal, performance.now() + 30);
    wait.clear();
    await new Promise((resolve) => setTimeout(resolve, 60));
    client.abort(new Error("gone"));
    expect(wait.signal.aborted).toBe(false);
  });
});
