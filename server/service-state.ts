/**
 * Whether the server is fit to serve, for /healthz and /readyz: `ok`,
 * `degraded` (answering, but from an older set than the one published,
 * because that one failed verification or broke at run time) or `unhealthy`
 * (the served set's database fails at run time and no verified set could
 * replace it). Ready once the first set is loaded and warmed, and while not unhealthy.
 */
export type Condition = { status: "ok" } | { status: "degraded" | "unhealthy"; reason: string };

export class ServiceState {
  #condition: Condition = { status: "ok" };
  #loaded = false;

  get condition(): Condition {
    return this.#condition;
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
}
