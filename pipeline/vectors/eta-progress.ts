/**
 * The embedding step's progress line: done/total, percent, rate and the
 * time left at the rate so far, e.g. `vectors: embedding 1,200/9,000 chunks
 * (13%), 21.4/s, ETA 6m 05s`. At most one line per interval, as the
 * build's other steps (build/step-progress.ts).
 */

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "unknown";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}h ${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m ${rest}s` : `${s % 60}s`;
}

export function etaLine(what: string, done: number, total: number, seconds: number): string {
  const count = (n: number) => n.toLocaleString("en-US");
  const rate = seconds > 0 ? done / seconds : 0;
  const left = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
  const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
  return `${what} ${count(done)}/${count(total)} (${pct}%), ${rate.toFixed(1)}/s, ETA ${formatDuration(left)}`;
}

/** Calls `log` with an ETA line at most every `intervalMs`, and always for the last unit. */
export function etaProgress(log: (line: string) => void, what: string, total: number, intervalMs = 10_000, now: () => number = () => performance.now()): (done: number) => void {
  const started = now();
  let last = started;
  return (done) => {
    const t = now();
    if (done < total && t - last < intervalMs) return;
    last = t;
    log(etaLine(what, done, total, (t - started) / 1000));
  };
}
