/**
 * Where the CPU goes (scripts/bench/threads.ts): the /proc formats it reads,
 * the shares it derives from two samples, and real measurements of this
 * process and of a process with two busy children, the shape of a cluster.
 */
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { childrenOf } from "../../scripts/bench/server-process.js";
import { measureCpu, parseProcStat, parseSchedstat, shares, type Sample } from "../../scripts/bench/threads.js";

describe("the counters", () => {
  it("reads /proc/stat's cpu line: busy without idle, iowait and steal; steal apart", () => {
    const text = "cpu  100 5 50 1000 20 3 7 15 40 0\ncpu0 50 2 25 500 10 1 3 7 20 0\nintr 1\n";
    expect(parseProcStat(text)).toEqual({ busy: 100 + 5 + 50 + 3 + 7, steal: 15, total: 100 + 5 + 50 + 1000 + 20 + 3 + 7 + 15 });
    expect(() => parseProcStat("intr 1\n")).toThrow("/proc/stat has no cpu line");
  });

  it("reads a schedstat line's time on a core and time waiting, and refuses anything else", () => {
    expect(parseSchedstat("2500000000 400000000 1234\n")).toEqual({ cpuNs: 2.5e9, waitNs: 4e8 });
    expect(() => parseSchedstat("")).toThrow("not a schedstat line");
  });

  it("derives cores over the window: main threads per serving process, their other threads, the primary, the machine", () => {
    const t = (pid: number, tid: number, cpuS: number, waitS: number) => ({ pid, tid, cpuNs: cpuS * 1e9, waitNs: waitS * 1e9 });
    const before: Sample = { at: 0, threads: [t(1, 1, 5, 0), t(2, 2, 1, 1), t(2, 20, 0, 0), t(3, 3, 1, 0)], machine: { busy: 1000, steal: 10, total: 2000 } };
    // Two seconds later; thread 3/30 started within the window; thread 2/20 ended (not counted).
    const after: Sample = { at: 2000, threads: [t(1, 1, 5.1, 0), t(2, 2, 2.6, 1.4), t(3, 3, 2.8, 0.2), t(3, 30, 0.4, 0)], machine: { busy: 1360, steal: 30, total: 2400 } };
    expect(shares(before, after, [2, 3], 2)).toEqual({
      seconds: 2,
      mains: [
        { cores: expect.closeTo(0.8, 9), waiting: expect.closeTo(0.2, 9) },
        { cores: expect.closeTo(0.9, 9), waiting: expect.closeTo(0.1, 9) },
      ],
      helpers: expect.closeTo(0.2, 9),
      primary: expect.closeTo(0.05, 9),
      machine: expect.closeTo(1.8, 9),
      steal: expect.closeTo(0.1, 9),
      cores: 2,
    });
  });
});

const linux = process.platform === "linux";
if (!linux) console.log("skipped: CPU shares from /proc (not Linux)");

describe.skipIf(!linux)("measureCpu on real processes", () => {
  it("counts this process's busy main thread as such, within what the process itself reports", async () => {
    const start = process.cpuUsage();
    const { cpu } = await measureCpu(process.pid, 1, cpus().length, async () => {
      const from = process.cpuUsage();
      // Spin until the process has used 300 ms of CPU.
      while (process.cpuUsage(from).user + process.cpuUsage(from).system < 300_000);
    });
    const used = process.cpuUsage(start);
    const mainSeconds = cpu!.mains[0]!.cores * cpu!.seconds;
    expect(cpu!.mains).toHaveLength(1);
    expect(mainSeconds).toBeGreaterThan(0.27);
    expect(mainSeconds).toBeLessThanOrEqual((used.user + used.system) / 1e6 + 0.02);
    expect(cpu!.primary).toBe(0);
    // /proc/stat counts in clock ticks, the whole machine.
    expect(cpu!.machine).toBeGreaterThan(cpu!.mains[0]!.cores * 0.8);
  });

  it("with workers, counts each child's main thread and the idle parent as the primary", async () => {
    const busy = "const end = Date.now() + 3000; while (Date.now() < end);";
    const parent = spawn(process.execPath, ["-e", `const { spawn } = require("node:child_process"); for (let i = 0; i < 2; i++) spawn(process.execPath, ["-e", ${JSON.stringify(busy)}], { stdio: "ignore" }); setTimeout(() => {}, 3500);`], { stdio: "ignore" });
    try {
      const deadline = Date.now() + 2000;
      while (childrenOf(parent.pid!).length < 2 && Date.now() < deadline) await sleep(20);
      const { cpu } = await measureCpu(parent.pid!, 2, cpus().length, () => sleep(800));
      expect(cpu!.mains).toHaveLength(2);
      // Two spinning processes on a shared machine: each gets a fair part of a core, and the parent almost none.
      for (const main of cpu!.mains) expect(main.cores).toBeGreaterThan(0.2);
      expect(cpu!.primary).toBeLessThan(0.1);
      expect(cpu!.seconds).toBeGreaterThan(0.75);
    } finally {
      // The parent may have exited already on a slow machine (its children end on their own).
      try {
        for (const child of childrenOf(parent.pid!)) process.kill(child);
      } catch {
        // gone
      }
      parent.kill();
    }
  });
});
