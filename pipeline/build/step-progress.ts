/**
 * Progress of a build's long steps for the operator: "<step>: done/total
 * (pct%)" lines, at most one per `intervalMs` however often the step
 * reports, so a log (cron, journald) gets a line every few seconds during a
 * step of minutes rather than thousands or none. A step's first report is
 * held back too: short steps print nothing beyond their end line.
 */

/** Told how far a step is: `done` of `total` units (rows, videos, records); `total` 0 when not known. */
export type StepProgress = (step: string, done: number, total: number) => void;

export interface StepProgressOptions {
  /** Least time between two lines, in ms. Default 10000. */
  intervalMs?: number;
  now?: () => number;
}

export function createStepProgress(log: (message: string) => void, options: StepProgressOptions = {}): StepProgress {
  const intervalMs = options.intervalMs ?? 10_000;
  const now = options.now ?? (() => performance.now());
  let lastLine = now();
  return (step, done, total) => {
    const t = now();
    if (t - lastLine < intervalMs) return;
    lastLine = t;
    const count = (n: number) => n.toLocaleString("en-US");
    // Without a known total (0): the count alone.
    log(total > 0 ? `${step}: ${count(done)}/${count(total)} (${Math.min(100, Math.floor((done / total) * 100))}%)` : `${step}: ${count(done)}`);
  };
}
