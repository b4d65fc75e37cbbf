/**
 * GET /metrics: the Prometheus text exposition, without an API key (like
 * /healthz and /readyz), outside the /v1 route table and its OpenAPI
 * document: it is for the operator's scraper, not for API clients.
 */
import type { RequestContext } from "../http/context.js";
import { HttpError } from "../problem/http-error.js";
import { RawJson, sendJson } from "../http/respond.js";
import type { Metrics } from "./metrics.js";

export const METRICS_PATH = "/metrics";

export async function serveMetrics(ctx: RequestContext, metrics: Metrics): Promise<void> {
  if (ctx.method !== "GET" && ctx.method !== "HEAD") {
    throw new HttpError(405, "method_not_allowed", "This endpoint allows GET, HEAD.", { headers: { Allow: "GET, HEAD" } });
  }
  const { text, contentType } = await metrics.render();
  // RawJson only carries the text through the common writer (compression, HEAD); it is sent as it is.
  await sendJson(ctx, { status: 200, body: new RawJson(text), contentType });
}
