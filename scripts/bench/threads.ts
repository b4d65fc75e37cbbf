/**
 * Where the CPU goes while a server answers (Linux): each thread's time on a
 * core and time runnable but waiting for one, from
 * /proc/<pid>/task/<tid>/schedstat, and the whole machine's busy and stolen
 * time from /proc/stat, taken before and after a window. With two workers on
 * two cores, a main thread that waits for a core holds up every connection
 * its worker serves, so the wait is what the latency tail is made of.
 */
import { readFileSync, readdirSync } from "node:fs";
import { childrenOf } from "./server-process.js";

/** One thread's counters (nanoseconds). */
interface ThreadCounters {
  pid: number;
  tid: number;
  cpuNs: number;
  waitNs: number;
}

/** The machine's counters from /proc/stat's `cpu` line (clock ticks). */
interface MachineCounters {
  busy: number;
  steal: number;
  total: number;
}

export interface CpuShares {
  seconds: number;
  /** Each serving process's main thread (the workers', or the one process's): cores used, and the share of the window it waited for a core. */
  mains: { cores: number; waiting: number }[];
  /** The serving processes' other threads (V8's collector and compiler, libuv's pool, read-ahead threads): cores in all. */
  helpers: number;
  /** The cluster's primary, all its threads (0 with one worker): cores. */
  primary: number;
  /** Busy cores of the whole machine (the load generator and the kernel's network work included). */
  machine: number;
  /** Cores the hypervisor took from this machine (steal). */
  steal: number;
  /** Cores of the machine. */
  cores: number;
}

/** `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user). */
export function parseProcStat(text: string): MachineCounters {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) throw new Error("/proc/stat has no cpu line");
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** The first two fields of a schedstat file: nanoseconds on a core, nanoseconds waiting on a run queue. */
export function parseSchedstat(text: string): { cpuNs: number; waitNs: number } {
  const [cpu, wait] = text.trim().split(/\s+/).map(Number);
  if (!Number.isFinite(cpu) || !Number.isFinite(wait)) throw new Error(`not a schedstat line: ${JSON.stringify(text)}`);
  return { cpuNs: cpu!, waitNs: wait! };
}

function threadsOf(pid: number): ThreadCounters[] {
  const threads: ThreadCounters[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.push({ pid, tid: Number(task), ...parseSchedstat(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8")) });
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

export interface Sample {
  at: number;
  threads: ThreadCounters[];
  machine: MachineCounters;
}

export function sample(pids: readonly number[]): Sample {
  return { at: performance.now(), threads: pids.flatMap(threadsOf), machine: parseProcStat(readFileSync("/proc/stat", "utf8")) };
}

/** The shares over the window between two samples. `serving` are the processes that answer requests; any other pid sampled is the primary. */
export function shares(before: Sample, after: Sample, serving: readonly number[], cores: number): CpuShares {
  const seconds = (after.at - before.at) / 1000;
  const start = new Map(before.threads.map((t) => [`${t.pid}/${t.tid}`, t]));
  // A thread started within the window counts from zero; one that ended within it is not counted.
  const delta = after.threads.map((t) => {
    const s = start.get(`${t.pid}/${t.tid}`);
    return { ...t, cpuNs: t.cpuNs - (s?.cpuNs ?? 0), waitNs: t.waitNs - (s?.waitNs ?? 0) };
  });
  const coresOf = (ns: number) => ns / 1e9 / seconds;
  const sum = (list: typeof delta) => list.reduce((total, t) => total + t.cpuNs, 0);
  const ticks = after.machine.total - before.machine.total;
  return {
    seconds,
    mains: serving.map((pid) => {
      const main = delta.find((t) => t.tid === pid);
      return { cores: coresOf(main?.cpuNs ?? 0), waiting: coresOf(main?.waitNs ?? 0) };
    }),
    helpers: coresOf(sum(delta.filter((t) => serving.includes(t.pid) && t.tid !== t.pid))),
    primary: coresOf(sum(delta.filter((t) => !serving.includes(t.pid)))),
    machine: ticks > 0 ? ((after.machine.busy - before.machine.busy) / ticks) * cores : 0,
    steal: ticks > 0 ? ((after.machine.steal - before.machine.steal) / ticks) * cores : 0,
    cores,
  };
}

/**
 * Runs `work` and reports where the CPU went meanwhile in the server whose
 * process is `pid`: with `workers` > 1 that process is the cluster's primary
 * and its children serve. Undefined where /proc does not give the counters.
 */
export async function measureCpu<T>(pid: number, workers: number, cores: number, work: () => Promise<T>): Promise<{ result: T; cpu: CpuShares | undefined }> {
  let serving: number[];
  let before: Sample | undefined;
  try {
    serving = workers > 1 ? childrenOf(pid) : [pid];
    before = sample([pid, ...serving.filter((p) => p !== pid)]);
  } catch {
    serving = [];
  }
  const result = await work();
  if (!before) return { result, cpu: undefined };
  try {
    return { result, cpu: shares(before, sample([pid, ...serving.filter((p) => p !== pid)]), serving, cores) };
  } catch {
    return { result, cpu: undefined };
  }
}
