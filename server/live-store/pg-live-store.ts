/**
 * A replica's side of the shared live store in PostgreSQL (DATABASE_URL).
 * A live fetch is committed there before it is answered as stored; every
 * replica mirrors the rows into its own `live.db` (with the shared store's
 * id and sequence numbers), so one search code path serves them and the
 * manifests' watermarks trim both alike.
 *
 * The mirror reads rows after the last one it took, when PostgreSQL notifies
 * a commit (LISTEN) and every `pollMs` in any case (a notification lost
 * while the connection was down). A row the served set holds already (at or
 * below its watermark), or older than the record this store holds for the
 * video, is skipped. PostgreSQL unreachable: the mirror retries at its next
 * tick; a live fetch that cannot commit is stored in this replica's
 * `live.db` and queued there (`pending_shared`, at most `maxPending` rows,
 * durable with the record), and the queue is written to PostgreSQL in order,
 * with backoff, until it answers. A row leaves the queue only after its
 * commit, so a crash between the two writes it again: a repeat, which the
 * fold merges and the mirror skips, never a loss.
 *
 * What a request waits for (a commit, the look for rows other replicas
 * committed) has a deadline (DATABASE_DEADLINE_MS): a PostgreSQL that keeps
 * its connections open but does not answer counts as unreachable, as one
 * that refuses them. While it is, requests do not ask it at all (a fetch is
 * queued at once); the mirror's next read, in the background, finds it back.
 */
import pg from "pg";
import type { Manifest, VideoRecord } from "../../pipeline/artifact/contract/index.js";
import { ensureSharedLiveStore, insertSharedRecord, LIVE_CHANNEL_NAME, sharedMaxSeq, sharedRecords } from "../../pipeline/artifact/live-store/index.js";
import type { LiveStore } from "./live-store.js";
import { HttpError } from "../problem/http-error.js";
import { errorFields, type Logger } from "../log.js";

/** What the mirror needs of the served catalog. */
export interface MirrorCatalog {
  readonly manifest: Pick<Manifest, "liveSeq" | "liveStoreId">;
  storeLive(record: VideoRecord, stored: { seq: number; fetchedAt: Date }): void;
}

export interface SharedLiveStore {
  readonly storeId: string;
  /** Commits a fetched record durably; resolves with its sequence number. Throws a 503 HttpError when PostgreSQL cannot. */
  commit(record: VideoRecord, fetchedAt: Date): Promise<number>;
  /** Whether a record that cannot be committed now may be queued in `live.db` (the queue is not full). */
  queueRoom(): boolean;
  /** Writes the queued records to PostgreSQL now (the mirror's timer does it too, with backoff); resolves with how many are left. */
  flush(): Promise<number>;
  /** Copies this replica's records of another store to PostgreSQL, then makes `live` a mirror of the shared store. */
  adopt(live: LiveStore): Promise<void>;
  /** Starts mirroring new rows into the served catalog's live store. */
  mirror(catalogs: { readonly current: MirrorCatalog }, live: LiveStore): void;
  /** Resolves true once every row through `seq` is mirrored here, false after `timeoutMs`. */
  mirroredThrough(seq: number, timeoutMs?: number): Promise<boolean>;
  /** Mirrors every row committed so far; false when PostgreSQL cannot say (or the mirror lags past `timeoutMs`). */
  catchUp(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface SharedLiveStoreOptions {
  url: string;
  log: Logger;
  /** Read new rows at least this often, in ms. Default 1000. */
  pollMs?: number;
  /** Most records queued in `live.db` for PostgreSQL; a fetch beyond is answered 503. Default 10000. */
  maxPending?: number;
  /** Told when PostgreSQL stops answering (false) and answers again (true), once per change. */
  onReachable?: (up: boolean) => void;
  /** How long a request waits for PostgreSQL (a commit, the highest number), in ms; a miss counts as unreachable. Default 500. */
  deadlineMs?: number;
}

/** Queue retries after a failure: 1 s, doubling up to this. */
const MAX_BACKOFF_MS = 8_000;

const BATCH = 500;

/** How long a stop waits for PostgreSQL to close the connections. */
const CLOSE_WAIT_MS = 1_000;

export async function openSharedLiveStore(options: SharedLiveStoreOptions): Promise<SharedLiveStore> {
  const pool = new pg.Pool({ connectionString: options.url, application_name: "transcript-server live", connectionTimeoutMillis: 2_000, query_timeout: 5_000, max: 4 });
  // Said once per outage by `reached`; an idle connection lost is a detail of it.
  pool.on("error", (error) => options.log.debug("postgresql live store connection lost", errorFields(error)));
  const setup = await pool.connect();
  let storeId: string;
  try {
    storeId = await ensureSharedLiveStore(setup);
  } finally {
    setup.release();
  }
  return new PgSharedLiveStore({ pool, storeId, options });
}

interface Mirrored {
  catalogs: { readonly current: MirrorCatalog };
  live: LiveStore;
}

/**
 * The store over its pool: whether PostgreSQL answers (`#reached`), the
 * mirror of its rows into live.db (`#pull`, `#sync`, `#listen`,
 * `mirroredThrough`), a request's commit, and the queue written to it once
 * it answers again (`#drain`, `flush`).
 */
class PgSharedLiveStore implements SharedLiveStore {
  readonly storeId: string;
  readonly #pool: pg.Pool;
  readonly #log: Logger;
  readonly #options: SharedLiveStoreOptions;
  readonly #deadlineMs: number;
  readonly #maxPending: number;
  /** The last row mirrored. */
  #cursor = 0;
  #closed = false;
  #running: Promise<void> | undefined;
  #again = false;
  #listener: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #waiters = new Set<{ seq: number; resolve: (ok: boolean) => void }>();
  #target: Mirrored | undefined;
  #reachable = true;
  #failures = 0;
  #retryAt = 0;
  #flushing: Promise<number> | undefined;

  constructor(parts: { pool: pg.Pool; storeId: string; options: SharedLiveStoreOptions }) {
    const { options } = parts;
    this.storeId = parts.storeId;
    this.#pool = parts.pool;
    this.#log = options.log;
    this.#options = options;
    this.#deadlineMs = options.deadlineMs ?? 500;
    this.#maxPending = options.maxPending ?? 10_000;
  }

  /** A request's commit: not tried while PostgreSQL is unreachable (the caller queues the record), else within the deadline. */
  commit(record: VideoRecord, fetchedAt: Date): Promise<number> {
    if (!this.#reachable) return Promise.reject(unavailable(new Error("postgresql unreachable")));
    return this.#commitRecord(record, fetchedAt, this.#deadlineMs);
  }

  queueRoom(): boolean {
    return this.#target !== undefined && this.#target.live.pendingCount() < this.#maxPending;
  }

  flush(): Promise<number> {
    if (this.#closed) return Promise.resolve(this.#target?.live.pendingCount() ?? 0);
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async adopt(live: LiveStore): Promise<void> {
    if (live.storeId === this.storeId) return;
    let copied = 0;
    const client = await this.#pool.connect();
    try {
      // Copied first: a crash before `adopt` copies them again next time (a fold merges repeats).
      // Read whole first: the store's statement must not stay open across the awaits.
      for (const record of [...live.records()]) {
        await insertSharedRecord(client, record, new Date());
        copied++;
      }
    } finally {
      client.release();
    }
    live.adopt(this.storeId);
    this.#log.info("live store now mirrors the shared store", { storeId: this.storeId, copied });
  }

  mirror(catalogs: { readonly current: MirrorCatalog }, live: LiveStore): void {
    const covered = catalogs.current.manifest;
    this.#cursor = covered.liveStoreId === this.storeId ? covered.liveSeq : 0;
    this.#target = { catalogs, live };
    void this.#listen().then(() => this.#sync());
    // Records queued before a restart go first.
    if (live.pendingCount() > 0) void this.flush();
    this.#timer = setInterval(() => {
      void this.#listen();
      void this.#sync();
      if (Date.now() >= this.#retryAt && live.pendingCount() > 0) void this.flush();
    }, this.#options.pollMs ?? 1_000);
    this.#timer.unref();
  }

  mirroredThrough(seq: number, timeoutMs = 5_000): Promise<boolean> {
    if (seq <= this.#cursor) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        seq,
        resolve: (ok: boolean) => {
          clearTimeout(timeout);
          resolve(ok);
        },
      };
      const timeout = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.#waiters.add(waiter);
      void this.#sync();
    });
  }

  async catchUp(timeoutMs = 5_000): Promise<boolean> {
    if (!this.#reachable) return false;
    let max: number;
    try {
      max = await onClient(this.#pool, sharedMaxSeq, this.#deadlineMs);
    } catch (error) {
      this.#log.warn("shared live store unreadable; fetching", errorFields(error));
      this.#reached(false, error);
      return false;
    }
    return this.mirroredThrough(max, timeoutMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const waiter of this.#waiters) waiter.resolve(false);
    this.#waiters.clear();
    await this.#running;
    await this.#flushing;
    // A stalled PostgreSQL never answers an idle connection's goodbye: a stop does not wait for it past a while.
    const goodbyes = Promise.all([this.#listener?.end().catch(() => undefined), this.#pool.end().catch(() => undefined)]);
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([goodbyes, new Promise((resolve) => (giveUp = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(giveUp);
  }

  /** One line per change, not one per failed request. */
  #reached(up: boolean, error?: unknown): void {
    if (up === this.#reachable) return;
    this.#reachable = up;
    if (up) this.#log.info("postgresql reachable again: live fetches committed there, queued records written", { queued: this.#target?.live.pendingCount() ?? 0 });
    else this.#log.warn("postgresql unreachable: live fetches stored here and queued for it", error === undefined ? {} : errorFields(error));
    this.#options.onReachable?.(up);
  }

  /** Rows after the cursor into the served catalog's live store, skipping those it holds already; then the waiters they satisfy. */
  async #pull(): Promise<void> {
    if (this.#target === undefined) return;
    const { catalogs, live } = this.#target;
    for (;;) {
      const rows = await sharedRecords(this.#pool, this.#cursor, Number.MAX_SAFE_INTEGER, BATCH);
      for (const row of rows) {
        const catalog = catalogs.current;
        const covered = catalog.manifest.liveStoreId === this.storeId ? catalog.manifest.liveSeq : 0;
        const held = live.heldSeq(row.record.videoId);
        if (row.seq > covered && (held === undefined || held < row.seq)) {
          catalog.storeLive(row.record, { seq: row.seq, fetchedAt: new Date(row.fetchedAt) });
        }
        this.#cursor = row.seq;
      }
      if (rows.length < BATCH) break;
    }
    for (const waiter of this.#waiters) {
      if (waiter.seq <= this.#cursor) {
        this.#waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  /** One pull at a time; a request during one runs another after it. */
  #sync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#pull()
      .then(() => this.#reached(true))
      .catch((error: unknown) => {
        if (this.#reachable) this.#log.warn("live store mirror failed; retrying", errorFields(error));
        this.#reached(false, error);
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          void this.#sync();
        }
      });
    return this.#running;
  }

  /** The connection that hears each commit (LISTEN), made again at the next tick once lost. */
  async #listen(): Promise<void> {
    if (this.#closed || this.#listener !== undefined) return;
    const client = new pg.Client({ connectionString: this.#options.url, application_name: "transcript-server live listen", connectionTimeoutMillis: 2_000 });
    this.#listener = client;
    client.on("error", () => {
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
    });
    client.on("notification", () => void this.#sync());
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL_NAME}`);
    } catch {
      if (this.#listener === client) this.#listener = undefined;
      await client.end().catch(() => undefined);
    }
  }

  /** Commits one record; `withinMs`: fails past it (see `onClient`). */
  async #commitRecord(record: VideoRecord, fetchedAt: Date, withinMs?: number): Promise<number> {
    try {
      return await onClient(this.#pool, (client) => insertSharedRecord(client, record, fetchedAt), withinMs);
    } catch (error) {
      this.#reached(false, error);
      throw unavailable(error);
    }
  }

  /** The queue, oldest first, until it is empty or PostgreSQL fails (then the next try waits, doubling). */
  async #drain(): Promise<number> {
    if (this.#target === undefined) return 0;
    const { catalogs, live } = this.#target;
    for (;;) {
      const batch = live.pending(BATCH);
      if (batch.length === 0) break;
      for (const queued of batch) {
        let seq: number;
        try {
          // Not the request's deadline: the queue's writes are how PostgreSQL is found back.
          seq = await this.#commitRecord(queued.record, queued.fetchedAt);
        } catch (error) {
          this.#failures++;
          this.#retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (this.#failures - 1));
          this.#log.debug("queued live records not written to postgresql; retrying", { queued: live.pendingCount(), ...errorFields(error) });
          return live.pendingCount();
        }
        try {
          // The shared number from now on, as if it had been committed at once; then out of the queue.
          catalogs.current.storeLive(queued.record, { seq, fetchedAt: queued.fetchedAt });
          live.settlePending(queued.id);
        } catch (error) {
          // In PostgreSQL already: a row left in the queue is written again later (a repeat, not a loss).
          this.#log.error("queued live record committed but not settled here", { videoId: queued.record.videoId, ...errorFields(error) });
          this.#retryAt = Date.now() + MAX_BACKOFF_MS;
          return live.pendingCount();
        }
        this.#failures = 0;
        this.#retryAt = 0;
      }
    }
    const left = live.pendingCount();
    if (left === 0) this.#reached(true);
    return left;
  }
}

/**
 * Runs `work` on a client of `pool`. With `withinMs`, the call fails once
 * that long has passed, waiting for a client included; a client still at
 * work then is dropped, not reused, since its query may still be waiting on a
 * stalled server (as is one whose work failed: a query that failed may leave
 * the connection mid-transaction).
 */
async function onClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, withinMs?: number): Promise<T> {
  let late = false;
  let client: pg.PoolClient | undefined;
  const running = pool.connect().then((acquired) => {
    if (late) {
      acquired.release();
      throw new Error("client acquired past the deadline");
    }
    client = acquired;
    return work(acquired);
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    if (withinMs === undefined) return;
    timer = setTimeout(() => {
      late = true;
      reject(new Error(`no answer within ${withinMs} ms (DATABASE_DEADLINE_MS)`));
    }, withinMs);
  });
  try {
    const result = await Promise.race([running, deadline]);
    client?.release();
    return result;
  } catch (error) {
    running.catch(() => undefined);
    client?.release(error instanceof Error ? error : true);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(error: unknown): HttpError {
  return new HttpError(503, "live_store_unavailable", "The transcript was fetched but cannot be stored right now; try again shortly.", {
    headers: { "Retry-After": "5" },
    cause: error,
  });
}
