/**
 * Whether memory grew during the soak. V8's heap saws up and down by 100 MB
 * and more between collections, so two point samples can differ by that much
 * without any leak; a leak raises the floor. So the judged figure compares the
 * lowest sample of the last third of the run with the lowest of the first
 * third after warm-up.
 */
export interface MemorySample {
  /** Seconds since the load started. */
  t: number;
  anonMiB: number;
}

export interface FloorGrowth {
  earlyFloorMiB: number;
  lateFloorMiB: number;
  /** lateFloor ÷ earlyFloor − 1; undefined when the run was too short to have both windows. */
  growth: number | undefined;
}

export function floorGrowth(samples: readonly MemorySample[], warmupSeconds: number, totalSeconds: number): FloorGrowth {
  const span = totalSeconds - warmupSeconds;
  const early = samples.filter((s) => s.t >= warmupSeconds && s.t < warmupSeconds + span / 3).map((s) => s.anonMiB);
  const late = samples.filter((s) => s.t >= totalSeconds - span / 3).map((s) => s.anonMiB);
  if (early.length === 0 || late.length === 0) return { earlyFloorMiB: 0, lateFloorMiB: 0, growth: undefined };
  const earlyFloorMiB = Math.min(...early);
  const lateFloorMiB = Math.min(...late);
  return { earlyFloorMiB, lateFloorMiB, growth: lateFloorMiB / earlyFloorMiB - 1 };
}
