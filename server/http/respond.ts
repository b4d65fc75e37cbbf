/**
 * Writes a JSON (or problem+json) response: serialises, compresses when the
 * client allows it and the body is worth it, and leaves the body off for
 * HEAD and 304.
 */
import type { ServerResponse } from "node:http";
import { COMPRESS_MIN_BYTES, chooseEncoding, compress } from "./compression.js";
import type { RequestContext } from "./context.js";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export interface JsonResponse {
  status: number;
  /** undefined: no body (304). */
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function sendJson(ctx: RequestContext, response: JsonResponse): Promise<void> {
  const { res } = ctx;
  if (res.headersSent || res.destroyed) return;
  applyHeaders(res, response.headers);
  res.setHeader("Vary", "Accept-Encoding");
  if (response.body === undefined) {
    res.statusCode = response.status;
    res.end();
    return;
  }
  let payload: Buffer = Buffer.from(JSON.stringify(response.body), "utf8");
  const encoding = payload.length >= COMPRESS_MIN_BYTES ? chooseEncoding(ctx.req.headers["accept-encoding"]) : undefined;
  if (encoding !== undefined) {
    payload = await compress(payload, encoding);
    if (res.headersSent || res.destroyed) return;
    res.setHeader("Content-Encoding", encoding);
  }
  res.statusCode = response.status;
  res.setHeader("Content-Type", response.contentType ?? JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", payload.length);
  if (ctx.method === "HEAD") res.end();
  else res.end(payload);
}

function applyHeaders(res: ServerResponse, headers: Record<string, string> | undefined): void {
  if (headers === undefined) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
