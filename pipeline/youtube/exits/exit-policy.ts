/**
 * How hard one exit (a proxy, or the direct route) may be used, and how it is
 * rested: pacing, cool-down after a block, and when a failing exit is taken
 * out and probed again. The same policy applies to every exit of a pool.
 */
export interface ExitPolicy {
  /** Upstream requests one exit starts per minute, evenly spaced; 0: unpaced. */
  requestsPerMinute: number;
  /** Requests one exit has in flight at most (in this process). */
  maxInFlight: number;
  /** Cool-down after a block that gave no Retry-After, in ms; doubled for each block in a row, plus up to 50 % jitter. */
  coolDownMs: number;
  /** Cap of a cool-down without Retry-After, in ms. */
  coolDownMaxMs: number;
  /** Failures in a row (connection refused, timeout) that take an exit out. */
  deadAfterFailures: number;
  /** Wait before an exit taken out is tried again (one probe request), in ms; doubled each time the probe fails. */
  probeAfterMs: number;
  /** Cap of that wait, in ms. */
  probeMaxMs: number;
}

/** Defaults of the library (no settings read): unpaced, cool-down 1 s doubling to 30 s, out after 3 failures, probed after 30 s. */
export const DEFAULT_EXIT_POLICY: ExitPolicy = {
  requestsPerMinute: 0,
  maxInFlight: 64,
  coolDownMs: 1_000,
  coolDownMaxMs: 30_000,
  deadAfterFailures: 3,
  probeAfterMs: 30_000,
  probeMaxMs: 600_000,
};

/** Gap between two request starts on one exit, in ms (0 when unpaced). */
export function spacingMs(policy: Pick<ExitPolicy, "requestsPerMinute">): number {
  return policy.requestsPerMinute > 0 ? 60_000 / policy.requestsPerMinute : 0;
}

/** The n-th cool-down in a row (n from 1) without Retry-After: doubled each time, up to 50 % jitter, capped. */
export function coolDownDelay(n: number, policy: Pick<ExitPolicy, "coolDownMs" | "coolDownMaxMs">, random: number): number {
  const exponential = policy.coolDownMs * 2 ** Math.max(0, n - 1);
  return Math.min(policy.coolDownMaxMs, Math.round(exponential * (1 + 0.5 * random)));
}

/** The n-th wait in a row (n from 1) before probing a dead exit. */
export function probeDelay(n: number, policy: Pick<ExitPolicy, "probeAfterMs" | "probeMaxMs">): number {
  return Math.min(policy.probeMaxMs, policy.probeAfterMs * 2 ** Math.max(0, n - 1));
}

export function validatePolicy(policy: ExitPolicy): ExitPolicy {
  const check = (key: keyof ExitPolicy, min: number): void => {
    const value = policy[key];
    if (!Number.isFinite(value) || value < min) throw new TypeError(`Expected the exit policy's "${key}" to be a number of at least ${min}`);
  };
  check("requestsPerMinute", 0);
  check("maxInFlight", 1);
  check("coolDownMs", 0);
  check("coolDownMaxMs", 0);
  check("deadAfterFailures", 1);
  check("probeAfterMs", 0);
  check("probeMaxMs", 0);
  return policy;
}
