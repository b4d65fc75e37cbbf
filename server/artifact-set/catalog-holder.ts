/**
 * The artifact set being served, swappable while requests run. Each request
 * leases the set that is current when it starts and returns the lease when it
 * ends; a set that has been replaced is closed when its last lease comes
 * back. Reference counting rather than a grace period: a slow request (a live
 * fetch can take many seconds) is never cut off, and a quiet server releases
 * the old files at once instead of after an arbitrary delay.
 */

export interface CatalogLease<C> {
  readonly catalog: C;
  /** Idempotent. */
  release(): void;
}

/** What `createApp` needs to serve a catalog that may change under it. */
export interface CatalogProvider<C> {
  readonly current: C;
  acquire(): CatalogLease<C>;
}

interface Entry<C> {
  catalog: C;
  leases: number;
  retired: boolean;
}

export interface CatalogHolderOptions<C> {
  /** Called after a replaced set was closed. */
  onClosed?: (catalog: C) => void;
}

/** One request's hold on a set: released once, however often release() is called. An object, not a closure, since every request takes one. */
class Lease<C extends { close(): void }> implements CatalogLease<C> {
  readonly catalog: C;
  #entry: Entry<C> | undefined;
  readonly #close: (entry: Entry<C>) => void;

  constructor(entry: Entry<C>, close: (entry: Entry<C>) => void) {
    this.catalog = entry.catalog;
    this.#entry = entry;
    this.#close = close;
  }

  release(): void {
    const entry = this.#entry;
    if (entry === undefined) return;
    this.#entry = undefined;
    entry.leases--;
    if (entry.retired && entry.leases === 0) this.#close(entry);
  }
}

export class CatalogHolder<C extends { close(): void }> implements CatalogProvider<C> {
  #current: Entry<C>;
  readonly #retired = new Set<Entry<C>>();
  readonly #onClosed: ((catalog: C) => void) | undefined;
  /** Made once, handed to every lease. */
  readonly #closeRetired = (entry: Entry<C>): void => this.#close(entry);

  constructor(initial: C, options: CatalogHolderOptions<C> = {}) {
    this.#current = { catalog: initial, leases: 0, retired: false };
    this.#onClosed = options.onClosed;
  }

  get current(): C {
    return this.#current.catalog;
  }

  /** Replaced sets still held by running requests. */
  get retiredOpen(): number {
    return this.#retired.size;
  }

  acquire(): CatalogLease<C> {
    const entry = this.#current;
    entry.leases++;
    return new Lease(entry, this.#closeRetired);
  }

  /** Serves `next` from now on; the previous set closes once no request holds it. */
  swap(next: C): void {
    const previous = this.#current;
    this.#current = { catalog: next, leases: 0, retired: false };
    previous.retired = true;
    if (previous.leases === 0) this.#close(previous);
    else this.#retired.add(previous);
  }

  /** Closes every set, leased or not (for shutdown, after the server stopped). */
  close(): void {
    for (const entry of [...this.#retired]) this.#close(entry);
    this.#current.catalog.close();
  }

  #close(entry: Entry<C>): void {
    this.#retired.delete(entry);
    entry.catalog.close();
    this.#onClosed?.(entry.catalog);
  }
}
