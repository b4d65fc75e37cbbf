/**
 * Writes a JSON (or problem+json) response: serialises, compresses when the
 * client allows it and the body is worth it, and leaves the body off for
 * HEAD and 304.
 */
import { COMPRESS_MIN_BYTES, chooseEncoding, compress } from "./compression.js";
import type { RequestContext } from "./context.js";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A body already serialised, as parts sent one after the other (e.g. cached
 * UTF-8 bytes around a per-request field), so a cached representation is
 * written to the socket without being copied or encoded.
 */
export class RawBody {
  readonly parts: readonly (string | Buffer)[];

  constructor(...parts: (string | Buffer)[]) {
    this.parts = parts;
  }

  /** The whole body as one string (for tests and logs; sending never builds it). */
  get text(): string {
    return this.parts.map((part) => (typeof part === "string" ? part : part.toString("utf8"))).join("");
  }
}

/** A JSON body already serialised with `safeJson`. */
export class RawJson extends RawBody {}

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
  const headers = ctx.headers;
  if (response.headers !== undefined) Object.assign(headers, response.headers);
  // Kept beside what is already there (Origin, with a CORS allowlist).
  const vary = headers["Vary"];
  if (vary === undefined) headers["Vary"] = "Accept-Encoding";
  else if (!String(vary).includes("Accept-Encoding")) headers["Vary"] = `${vary}, Accept-Encoding`;
  if (response.body === undefined) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const given = response.body instanceof RawBody ? response.body.parts : [safeJson(response.body)];
  let parts: Buffer[] = [];
  let length = 0;
  for (const part of given) {
    const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : part;
    parts.push(bytes);
    length += bytes.length;
  }
  const encoding = length >= COMPRESS_MIN_BYTES ? chooseEncoding(ctx.req.headers["accept-encoding"]) : undefined;
  if (encoding !== undefined) {
    const compressed = await compress(parts.length === 1 ? parts[0]! : Buffer.concat(parts, length), encoding);
    if (res.headersSent || res.destroyed) return;
    headers["Content-Encoding"] = encoding;
    parts = [compressed];
    length = compressed.length;
  }
  headers["Content-Type"] = response.contentType ?? JSON_CONTENT_TYPE;
  headers["Content-Length"] = length;
  // One writeHead with every header: node validates and serialises them once (setHeader would store each first).
  res.writeHead(response.status, headers);
  if (ctx.method === "HEAD") {
    res.end();
    return;
  }
  // Corked, the parts leave in one writev with the headers; end() uncorks.
  res.cork();
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]!);
  res.end(parts[parts.length - 1]);
}

const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/;

/**
 * JSON with <, >, & and the JS line separators written as \u escapes: the
 * parsed value is the same, but the bytes can never form markup, should a
 * browser or a careless proxy ever render the body as HTML (defence in depth
 * beside nosniff and the CSP).
 */
export function safeJson(value: unknown): string {
  return escapeJsonText(JSON.stringify(value));
}

/** The same escaping over JSON text serialised elsewhere (an MCP answer): those characters only occur inside strings, so the value is unchanged. */
export function escapeJsonText(text: string): string {
  // One native pass per character beats one regex pass with a callback per match (URLs carry many `&`).
  if (!HTML_SIGNIFICANT.test(text)) return text;
  return text
    .replaceAll("&", "\\u0026")
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}
