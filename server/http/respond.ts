/**
 * Writes a JSON (or problem+json) response: serialises, compresses when the
 * client allows it and the body is worth it, and leaves the body off for
 * HEAD and 304.
 */
import type { ServerResponse } from "node:http";
import { COMPRESS_MIN_BYTES, chooseEncoding, compress } from "./compression.js";
import type { RequestContext } from "./context.js";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A body already serialised with `safeJson` (e.g. from a cache): sent as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

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
  let payload: Buffer = Buffer.from(response.body instanceof RawJson ? response.body.text : safeJson(response.body), "utf8");
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

const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/g;

/**
 * JSON with <, >, & and the JS line separators written as \u escapes: the
 * parsed value is the same, but the bytes can never form markup, should a
 * browser or a careless proxy ever render the body as HTML (defence in depth
 * beside nosniff and the CSP).
 */
export function safeJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.replace(HTML_SIGNIFICANT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function applyHeaders(res: ServerResponse, headers: Record<string, string> | undefined): void {
  if (headers === undefined) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
