/**
 * A request's context keeps its `signal` getter on its class, not on each
 * object. A context written as an object literal with its own getter made,
 * per request, an accessor pair that V8 allocates in the old generation;
 * through it the getter's closure and everything it reached (the context,
 * the request, the response) survived every scavenge: 2-3 MB copied and
 * promoted each time under load, against 0.02-0.2 MB without
 * (BENCHMARKS.md).
 */
import { EventEmitter } from "node:events";
import type http from "node:http";
import { describe, expect, it } from "vitest";
import { Context } from "../../server/http/context.js";

function context(id: string): Context {
  const res = new EventEmitter() as unknown as http.ServerResponse;
  const req = new EventEmitter() as unknown as http.IncomingMessage;
  return new Context({ req, res, requestId: id, method: "GET", path: `/v1/transcript/${id}`, query: new URLSearchParams(), startedAt: performance.now(), headers: { "X-Request-Id": id } });
}

describe("a request's context", () => {
  it("has no accessor of its own: signal is the class's", () => {
    const ctx = context("a");
    const own = Object.getOwnPropertyNames(ctx).map((name) => Object.getOwnPropertyDescriptor(ctx, name)!);
    expect(own.filter((d) => d.get !== undefined || d.set !== undefined)).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(Context.prototype, "signal")?.get).toBeTypeOf("function");
  });

  it("makes its signal on first use and aborts it when the client goes away, before or after", () => {
    const read = context("b");
    const signal = read.signal;
    expect(signal.aborted).toBe(false);
    expect(read.signal).toBe(signal);
    read.clientGone();
    expect(signal.aborted).toBe(true);
    const gone = context("c");
    gone.clientGone();
    expect(gone.signal.aborted).toBe(true);
    expect(gone.signal.reason).toBeInstanceOf(Error);
    expect(context("d").signal.aborted).toBe(false);
  });
});
