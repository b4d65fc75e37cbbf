/**
 * The rate limit counts per key in fixed clock-minute windows: a burst that
 * crosses a minute boundary is counted in two windows. Tests of exact limits
 * call this first.
 */

/** Waits, if needed, until at least `seconds` are left in the current clock minute. */
export async function roomInThisMinute(seconds = 12): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - seconds * 1000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}
