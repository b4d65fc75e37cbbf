import { performance } from "node:perf_hooks";
import type { RequestContext } from "./context.js";

/** Milliseconds since the request arrived, to the microsecond, for `timing.totalMs`. */
export function elapsedMs(ctx: RequestContext): number {
  return Math.round((performance.now() - ctx.startedAt) * 1000) / 1000;
}
