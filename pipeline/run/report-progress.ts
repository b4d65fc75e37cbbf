/**
 * What an operator sees while a run works: on a terminal, one progress line
 * on stderr redrawn in place (bar, counts, rate, ETA); anywhere else (cron,
 * systemd, a log file) a plain line every `intervalMs`, so logs stay
 * readable and grep-able.
 */

export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Default: whether `stream` is a TTY. */
  tty?: boolean;
  /** Plain mode: a status line this often, in ms. Default 10000. */
  intervalMs?: number;
  now?: () => number;
}

export interface StageCounts {
  done: number;
  /** A new total, for a stage whose total grows while it runs. */
  total?: number;
  /** Extra counts shown after the rate, e.g. { ok: 10, failed: 1 }. */
  detail?: Record<string, number>;
  /** A few words after the counts, e.g. "waiting: all 4 exits cooling, next in 7 s"; empty: none. */
  note?: string;
}

export interface Progress {
  /** Starts a stage with `total` units (0 when unknown). */
  stage(name: string, total: number, unit: string): void;
  update(counts: StageCounts): void;
  /** A message that must not be overdrawn. */
  log(message: string): void;
  /** Ends the current stage with a final line. */
  end(): void;
}

const WINDOW_MS = 30_000;

export function createProgress(options: ProgressOptions): Progress {
  const tty = options.tty ?? options.stream.isTTY === true;
  const intervalMs = options.intervalMs ?? 10_000;
  const now = options.now ?? Date.now;
  let name = "";
  let unit = "";
  let total = 0;
  let counts: StageCounts = { done: 0 };
  let started = 0;
  let lastDraw = 0;
  let drawn = false;
  let samples: { at: number; done: number }[] = [];

  const rate = (): number => {
    const t = now();
    samples = samples.filter((s) => t - s.at <= WINDOW_MS);
    const first = samples[0];
    if (first && t - first.at >= 1000) return (counts.done - first.done) / ((t - first.at) / 1000);
    const elapsed = (t - started) / 1000;
    return elapsed > 0 ? counts.done / elapsed : 0;
  };

  const line = (final: boolean): string => {
    const r = final ? counts.done / Math.max(0.001, (now() - started) / 1000) : rate();
    const parts = [name.padEnd(6)];
    if (total > 0 && tty && !final) parts.push(bar(counts.done / total, 24));
    parts.push(total > 0 ? `${counts.done}/${total} ${unit}` : `${counts.done} ${unit}`);
    parts.push(`${r.toFixed(1)}/s`);
    if (final) parts.push(`in ${formatDuration((now() - started) / 1000)}`);
    else if (total > 0 && r > 0) parts.push(`ETA ${formatDuration((total - counts.done) / r)}`);
    for (const [key, value] of Object.entries(counts.detail ?? {})) parts.push(`${key} ${value}`);
    if (counts.note) parts.push(counts.note);
    return parts.join("  ");
  };

  const clear = (): void => {
    if (tty && drawn) options.stream.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = (force = false): void => {
    const t = now();
    if (!force && t - lastDraw < (tty ? 100 : intervalMs)) return;
    lastDraw = t;
    samples.push({ at: t, done: counts.done });
    if (tty) {
      const width = (options.stream.columns ?? 100) - 1;
      options.stream.write(`\r\x1b[2K${line(false).slice(0, width)}`);
      drawn = true;
    } else {
      options.stream.write(`[pipeline] ${line(false)}\n`);
    }
  };

  return {
    stage(stageName, stageTotal, stageUnit) {
      clear();
      name = stageName;
      unit = stageUnit;
      total = stageTotal;
      counts = { done: 0 };
      started = now();
      lastDraw = started;
      samples = [{ at: started, done: 0 }];
      if (tty) draw(true);
    },
    update(next) {
      counts = next;
      if (next.total !== undefined) total = next.total;
      draw();
    },
    log(message) {
      clear();
      options.stream.write(`[pipeline] ${message}\n`);
      if (tty && name) draw(true);
    },
    end() {
      clear();
      if (name) options.stream.write(`[pipeline] ${line(true)}\n`);
      name = "";
    },
  };
}

function bar(fraction: number, width: number): string {
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
