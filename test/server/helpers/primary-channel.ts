/**
 * A stand-in for a worker's IPC channel to its primary (what
 * server/cluster/worker-link.ts uses of `process`): message events and
 * `send`, every message sent kept.
 */
import { EventEmitter } from "node:events";
import type { PrimaryMessage, WorkerMessage } from "../../../server/cluster/messages.js";

export class PrimaryChannel extends EventEmitter {
  connected = true;
  readonly sent: WorkerMessage[] = [];
  send(message: WorkerMessage, _handle?: unknown, _options?: unknown, callback?: (error: Error | null) => void): boolean {
    this.sent.push(message);
    callback?.(null);
    return true;
  }
  /** A message from the primary, with a handle (a connection) as node:cluster delivers one. */
  deliver(message: PrimaryMessage, handle?: unknown): void {
    this.emit("message", message, handle);
  }
  /** The channel as connectWorker takes it. */
  asProcess(): NodeJS.Process {
    return this as unknown as NodeJS.Process;
  }
}
