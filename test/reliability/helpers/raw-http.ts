/**
 * A raw HTTP/1.1 client over a TCP socket: sends exactly the bytes given
 * (paths fetch would normalise, methods node:http refuses to send, bodies
 * larger than the server accepts) and reads until the server closes.
 */
import net from "node:net";

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The bytes as received, head included. */
  raw: string;
  /** From the first byte written to the connection's close. */
  ms: number;
}

export interface RawRequestOptions {
  /** Bytes sent after the head, e.g. a body; a function may stream them and ignores write errors. */
  body?: Buffer | string | ((socket: net.Socket) => void);
  /** Local address to connect from (any 127.x.y.z works on Linux), to look like another client. */
  localAddress?: string;
  /** Give up (and resolve with what arrived) after this long. Default 30 s. */
  timeoutMs?: number;
}

export function rawRequest(port: number, head: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect({ port, host: "127.0.0.1", ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 30_000);
    socket.on("connect", () => {
      socket.write(head);
      const body = options.body;
      if (typeof body === "function") body(socket);
      else if (body !== undefined) socket.write(body);
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // The server may answer and close before the body is sent; a write error then is expected.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks).toString("utf8"), performance.now() - started));
    });
  });
}

export function parseResponse(raw: string, ms: number): RawResponse {
  const split = raw.indexOf("\r\n\r\n");
  const headText = split < 0 ? raw : raw.slice(0, split);
  const [statusLine = "", ...lines] = headText.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers, body: split < 0 ? "" : raw.slice(split + 4), raw, ms };
}

/** Percent-encodes every byte outside the unreserved set; lone surrogates become U+FFFD rather than throwing. */
export function pct(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
