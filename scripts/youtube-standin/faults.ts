/**
 * Misbehaviour the stand-in can be told to show, one fault at a time, so
 * tests can drive the client down every failure path over real sockets.
 */

export type Endpoint = "watch" | "player" | "timedtext" | "resolve_url" | "browse" | "feed" | "channel_page";

export const ENDPOINTS: readonly Endpoint[] = ["watch", "player", "timedtext", "resolve_url", "browse", "feed", "channel_page"];

interface FaultScope {
  /** Only requests to this endpoint are affected. Default: the fault's own default (see `DEFAULT_ENDPOINTS`). */
  endpoint?: Endpoint | "any";
  /** Affect only the first N matching requests, then behave again. Default: every request until cleared. */
  times?: number;
}

export type Fault = FaultScope &
  (
    | { kind: "rate-limit"; retryAfterSeconds?: number }
    | { kind: "captcha" }
    | { kind: "bot-check" }
    | { kind: "slow"; delayMs: number }
    | { kind: "truncated-body" }
    | { kind: "connection-reset" }
    | { kind: "server-error"; status?: number }
    | { kind: "malformed-json" }
    | { kind: "truncated-xml" }
    | { kind: "empty-body" }
    | { kind: "huge-body"; bytes?: number }
    /** EU consent wall on /watch for requests without a CONSENT cookie; `invalid` serves the page without its `v` value, `ignoreCookie` serves it even with the cookie. */
    | { kind: "consent"; invalid?: boolean; ignoreCookie?: boolean }
  );

export type FaultKind = Fault["kind"];

export const DEFAULT_ENDPOINTS: Record<FaultKind, Endpoint | "any"> = {
  "rate-limit": "player",
  captcha: "watch",
  "bot-check": "player",
  slow: "any",
  "truncated-body": "any",
  "connection-reset": "any",
  "server-error": "any",
  "malformed-json": "player",
  "truncated-xml": "timedtext",
  "empty-body": "timedtext",
  "huge-body": "timedtext",
  consent: "watch",
};

/** The armed fault and how many more requests it may affect. */
export class FaultState {
  #fault: Fault | null = null;
  #remaining = Infinity;

  set(fault: Fault | null): void {
    this.#fault = fault;
    this.#remaining = fault?.times ?? Infinity;
  }

  /** The fault to apply to this request, consuming one of its `times`; null when none applies. */
  take(endpoint: Endpoint, applies: (fault: Fault) => boolean = () => true): Fault | null {
    const fault = this.#fault;
    if (!fault || this.#remaining <= 0) return null;
    const scope = fault.endpoint ?? DEFAULT_ENDPOINTS[fault.kind];
    if (scope !== "any" && scope !== endpoint) return null;
    if (!applies(fault)) return null;
    this.#remaining--;
    return fault;
  }
}
