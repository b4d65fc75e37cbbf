/**
 * Answers requests node:http rejects before they reach a route (malformed
 * request line, headers over MAX_HEADER_BYTES, headers or body too slow) with
 * the same problem+json body and security headers as every other error,
 * instead of node's bare status line. The socket is closed afterwards: after
 * a parse error its byte stream cannot be trusted.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_PREFIX } from "../problem/problem.js";
import { SECURITY_HEADERS } from "./security-headers.js";

interface ClientErrorAnswer {
  status: number;
  code: string;
  detail: string;
}

function answerFor(errorCode: string | undefined): ClientErrorAnswer {
  switch (errorCode) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "headers_too_large", detail: "The request headers exceed MAX_HEADER_BYTES." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", detail: "The request was not received in time." };
    default:
      return { status: 400, code: "bad_request", detail: "The request is not valid HTTP/1.1." };
  }
}

/**
 * Whether the rejected request is a HEAD, whose answer carries no body. Known
 * from the bytes node:http was parsing (`rawPacket`, the connection's first
 * chunk when the request line came in one piece); when they do not say, the
 * body is sent.
 */
function isHead(error: Error & { rawPacket?: unknown }): boolean {
  return Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
}

/** A `clientError` listener for node:http servers. */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  // Nothing can be written to a connection that is gone or already carries a response.
  const written = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
  if (error.code === "ECONNRESET" || !socket.writable || written > 0) {
    socket.destroy();
    return;
  }
  const { status, code, detail } = answerFor(error.code);
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: `${PROBLEM_TYPE_PREFIX}${code}`,
    title: STATUS_CODES[status] ?? "Error",
    status,
    detail,
    code,
    requestId,
  });
  const headers = {
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    "X-Request-Id": requestId,
    ...SECURITY_HEADERS,
    Connection: "close",
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n${head}\r\n${isHead(error) ? "" : body}`);
  // A client that stops reading must not keep the socket open.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
