/**
 * Whether the server is fit to serve, for /healthz and /readyz: `ok`,
 * `degraded` (answering, but from an older set than the one published,
 * because that one failed verification or broke at run time; or without a
 * shared service it normally uses, such as Redis, with a local fallback
 * instead) or `unhealthy` (the served set's database fails at run time and no
 * verified set could replace it). Ready once the first set is loaded and
 * warmed, and while not unhealthy.
 */
export type Condition = { status: "ok" } | { status: "degraded" | "unhealthy"; reason: string };

export class ServiceState {
  #condition: Condition = { status: "ok" };
  #loaded = false;
  /** Shared services unreachable now, each with what serves instead (`redis` → "rate limits counted per process"). */
  readonly #fallbacks = new Map<string, string>();

  /** The served set's condition, degraded too while a shared service is unreachable. */
  get condition(): Condition {
    if (this.#condition.status === "unhealthy" || this.#fallbacks.size === 0) return this.#condition;
    const reasons = [...(this.#condition.status === "degraded" ? [this.#condition.reason] : []), ...this.#fallbacks.values()];
    return { status: "degraded", reason: reasons.join("; ") };
  }

  /** The shared services unreachable now (`redis`, `postgresql`), in the order they went. */
  get unreachable(): string[] {
    return [...this.#fallbacks.keys()];
  }

  /** Loaded and warmed, and not unhealthy. */
  get ready(): boolean {
    return this.#loaded && this.#condition.status !== "unhealthy";
  }

  /** The first set is loaded and warmed. */
  markLoaded(): void {
    this.#loaded = true;
  }

  ok(): void {
    this.#condition = { status: "ok" };
  }

  degraded(reason: string): void {
    this.#condition = { status: "degraded", reason };
  }

  unhealthy(reason: string): void {
    this.#condition = { status: "unhealthy", reason };
  }

  /** `service` is unreachable and `reason` says what serves instead; returns false when it was already. */
  serviceDown(service: string, reason: string): boolean {
    const known = this.#fallbacks.has(service);
    this.#fallbacks.set(service, reason);
    return !known;
  }

  /** `service` answers again; returns false when it was not down. */
  serviceUp(service: string): boolean {
    return this.#fallbacks.delete(service);
  }
}
