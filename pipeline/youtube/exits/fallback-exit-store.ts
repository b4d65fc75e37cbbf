/**
 * A shared exit store (the fleet's in Redis, or the host's file) with a
 * nearer one behind it (the host's, or this process's memory). While the
 * shared one is unusable or has just failed, claims and settles go to the
 * near one, so a fetch never fails because the shared view cannot be asked;
 * the price is that other processes do not see this one's blocks meanwhile.
 *
 * Every outcome is recorded in the near store too, and a claim is asked of
 * it first: a block this host met while the shared store was away still
 * rests the exit here when the shared store is back.
 */
import type { ExitPolicy } from "./exit-policy.js";
import type { ClaimResult, ExitOutcome, ExitRecord, ExitStateStore } from "./exit-state-store.js";

export interface FallbackExitStoreOptions {
  shared: ExitStateStore;
  near: ExitStateStore;
  /** Whether to ask the shared store at all (its connection is up). Default: always. */
  usable?: () => boolean;
  /** After a failure of the shared store, how long it is not asked, in ms. Default 5000. */
  pauseMs?: number;
  /** Told when the shared store fails (with the error) and when it answers again; once per change. */
  onChange?: (up: boolean, error?: unknown) => void;
  /** Told of every failed call (redis-client.ts counts a missed deadline as Redis down). */
  failed?: (error: unknown) => void;
  now?: () => number;
}

export class FallbackExitStore implements ExitStateStore {
  readonly #options: FallbackExitStoreOptions;
  readonly #now: () => number;
  #pausedUntil = 0;
  #down = false;

  constructor(options: FallbackExitStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether the shared store is being used now. */
  get sharing(): boolean {
    return !this.#down && (this.#options.usable?.() ?? true);
  }

  async claim(key: string, now: number, policy: ExitPolicy): Promise<ClaimResult> {
    const { near, shared } = this.#options;
    if (!this.#ask()) return near.claim(key, now, policy);
    const here = await near.read(key);
    const restsUntil = Math.max(here.coolingUntil, here.dead && !here.probing ? here.deadUntil : 0);
    if (restsUntil > now) return { granted: false, readyAt: restsUntil, reason: here.coolingUntil > now ? "cooling" : "dead", record: here };
    try {
      const claimed = await shared.claim(key, now, policy);
      this.#answered();
      return claimed;
    } catch (error) {
      this.#failed(error);
      return near.claim(key, now, policy);
    }
  }

  async settle(key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): Promise<ExitRecord> {
    const { near, shared } = this.#options;
    const here = await near.settle(key, sentAt, now, outcome, policy, random);
    if (!this.#ask()) return here;
    try {
      const record = await shared.settle(key, sentAt, now, outcome, policy, random);
      this.#answered();
      return record;
    } catch (error) {
      this.#failed(error);
      return here;
    }
  }

  async read(key: string): Promise<ExitRecord> {
    const { near, shared } = this.#options;
    if (!this.#ask()) return near.read(key);
    try {
      const record = await shared.read(key);
      this.#answered();
      return record;
    } catch (error) {
      this.#failed(error);
      return near.read(key);
    }
  }

  #ask(): boolean {
    if (!(this.#options.usable?.() ?? true)) {
      this.#change(false);
      return false;
    }
    return this.#now() >= this.#pausedUntil;
  }

  #answered(): void {
    this.#change(true);
  }

  #failed(error: unknown): void {
    this.#pausedUntil = this.#now() + (this.#options.pauseMs ?? 5_000);
    this.#options.failed?.(error);
    this.#change(false, error);
  }

  #change(up: boolean, error?: unknown): void {
    if (this.#down === !up) return;
    this.#down = !up;
    this.#options.onChange?.(up, error);
  }
}
