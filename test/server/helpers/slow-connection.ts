/**
 * A raw keep-alive HTTP/1.1 connection whose reading the test controls: it
 * can stop reading (the socket paused, so the server's writes pile up in its
 * own buffers, as with a client on a slow link), read in small doses, and
 * tell how the server ended the connection: a FIN after the last byte, or a
 * reset.
 */
import net from "node:net";

export interface ReadResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface ConnectionEnd {
  /** The server's FIN arrived (everything it sent was read before it). */
  fin: boolean;
  /** The socket's error code (ECONNRESET for a reset), if any. */
  error: string | undefined;
}

export class SlowConnection {
  readonly socket: net.Socket;
  /** How the connection ended, once it has. */
  readonly ended: Promise<ConnectionEnd>;
  /** Bytes read so far, over every response. */
  received = 0;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #fin = false;
  #error: string | undefined;
  #closed = false;
  #waiter: (() => void) | undefined;
  #pauseOnData = false;
  #onPaused: (() => void) | undefined;
  #doseDelayMs = 0;
  /** The head of the response being read, once it is whole. */
  #head: { status: number; headers: Record<string, string>; bodyStart: number; end: number } | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    this.ended = new Promise((resolve) => {
      socket.on("end", () => (this.#fin = true));
      socket.on("error", (error: NodeJS.ErrnoException) => (this.#error = error.code ?? error.message));
      socket.on("close", () => {
        this.#closed = true;
        this.#wake();
        resolve({ fin: this.#fin, error: this.#error });
      });
    });
    socket.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#pauseOnData) {
        this.#pauseOnData = false;
        socket.pause();
        this.#onPaused?.();
      } else if (this.#doseDelayMs > 0) {
        socket.pause();
        setTimeout(() => socket.resume(), this.#doseDelayMs);
      }
      this.#wake();
    });
  }

  static open(port: number): Promise<SlowConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new SlowConnection(socket));
      });
    });
  }

  write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves once the next bytes arrive; reading then stops until `read` or `readSlowly`. */
  pauseAtFirstBytes(): Promise<void> {
    return new Promise((resolve) => {
      this.#pauseOnData = true;
      this.#onPaused = resolve;
      this.#wake();
    });
  }

  /** Reads on, at full speed. */
  read(): void {
    this.#doseDelayMs = 0;
    this.socket.resume();
  }

  /** Reads on, one chunk (at most 64 KiB) every `delayMs`. */
  readSlowly(delayMs: number): void {
    this.#doseDelayMs = delayMs;
    this.socket.resume();
  }

  /**
   * The next whole response (an interim 100 Continue counts as one), or
   * what arrived of it before the connection closed: a body shorter than
   * its Content-Length then.
   */
  async response(): Promise<ReadResponse> {
    for (;;) {
      const parsed = this.#take();
      if (parsed !== undefined) return parsed;
      if (this.#closed) return this.#rest();
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  #take(): ReadResponse | undefined {
    if (this.#head === undefined) {
      // Heads are small: joining what arrived until one is complete costs little.
      const joined = this.#join();
      const headEnd = joined.indexOf("\r\n\r\n");
      if (headEnd < 0) return undefined;
      const { status, headers } = parseHead(joined.subarray(0, headEnd).toString("latin1"));
      const length = status === 100 || status === 204 || status === 304 ? 0 : Number(headers["content-length"] ?? Number.NaN);
      if (!Number.isFinite(length)) throw new Error(`a response without Content-Length (status ${status})`);
      this.#head = { status, headers, bodyStart: headEnd + 4, end: headEnd + 4 + length };
    }
    // A body is joined once, when whole: not at every chunk of tens of megabytes.
    const head = this.#head;
    if (this.#pendingBytes < head.end) return undefined;
    const all = this.#join();
    const rest = all.subarray(head.end);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes = rest.length;
    this.#head = undefined;
    return { status: head.status, headers: head.headers, body: all.subarray(head.bodyStart, head.end) };
  }

  #join(): Buffer {
    const all = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = this.#pendingBytes === 0 ? [] : [all];
    return all;
  }

  /** What is left when the connection closed mid-response. */
  #rest(): ReadResponse {
    const all = this.#join();
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#head = undefined;
    const headEnd = all.indexOf("\r\n\r\n");
    if (headEnd < 0) return { status: 0, headers: {}, body: all };
    return { ...parseHead(all.subarray(0, headEnd).toString("latin1")), body: all.subarray(headEnd + 4) };
  }
}

function parseHead(text: string): { status: number; headers: Record<string, string> } {
  const [statusLine = "", ...lines] = text.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers };
}
