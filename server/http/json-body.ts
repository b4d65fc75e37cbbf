/**
 * Reads a JSON request body under a byte cap. A body announced or found to be
 * larger than the cap is refused with 413 without reading (or buffering) the
 * rest, and the connection is closed so the unread bytes cannot be taken for
 * the next request.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../problem/http-error.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";

export interface ReadJsonOptions {
  maxBytes: number;
}

const CLOSE = { Connection: "close" };

/** Far deeper than any request body of this API (bulk is 2 levels); bounds the parser's work on hostile nesting. */
export const MAX_JSON_DEPTH = 64;

/** What reading a JSON body can answer with, for the OpenAPI document of every route that takes one. */
export const JSON_BODY_PROBLEMS: readonly DocumentedProblem[] = [
  { status: 400, code: "invalid_json", description: "The body is empty, not valid JSON, or nests deeper than 64 levels." },
  { status: 413, code: "payload_too_large", description: "The body exceeds MAX_BODY_BYTES (the connection is closed)." },
  { status: 415, code: "unsupported_media_type", description: "Content-Type is not application/json (UTF-8)." },
];

export function assertJsonContentType(req: IncomingMessage): void {
  const header = req.headers["content-type"];
  const [type, ...params] = (header ?? "").split(";").map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (type !== "application/json" || (charset !== undefined && charset !== "utf-8")) {
    throw new HttpError(415, "unsupported_media_type", "The request body must be sent as Content-Type: application/json (UTF-8).");
  }
}

export async function readJsonBody(req: IncomingMessage, options: ReadJsonOptions): Promise<unknown> {
  const tooLarge = () =>
    new HttpError(413, "payload_too_large", `The request body exceeds ${options.maxBytes} bytes.`, { headers: CLOSE });
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    req.pause();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxBytes) {
        cleanup();
        req.pause();
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new HttpError(400, "invalid_json", "The request body could not be read.", { cause: error, headers: CLOSE }));
    };
    // A client that hangs up mid-body may only produce 'close'; without this the read would never settle.
    const onClose = () => onError(new Error("the client closed the connection before the body was complete"));
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
  const text = raw.toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "invalid_json", "The request body is empty; a JSON object was expected.");
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, "invalid_json", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "invalid_json", "The request body is not valid JSON.");
  }
  // The bytes were decoded as UTF-8, so a lone surrogate can only come from a \uD800-\uDFFF escape: it would be
  // echoed back in answers that strict JSON parsers refuse.
  if (/\\u[dD][89a-fA-F]/.test(text) && !wellFormed(value)) {
    throw new HttpError(400, "invalid_json", "The request body holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair); strings must be well-formed Unicode.");
  }
  return value;
}

/** Whether every string of a parsed JSON value, keys included, is well-formed UTF-16. */
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return value.isWellFormed();
  if (typeof value !== "object" || value === null) return true;
  if (Array.isArray(value)) return value.every(wellFormed);
  return Object.entries(value).every(([key, inner]) => key.isWellFormed() && wellFormed(inner));
}

/** Whether brackets outside strings nest deeper than `max`; one linear pass, no parsing. */
function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
