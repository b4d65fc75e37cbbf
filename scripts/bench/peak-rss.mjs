// Preloaded (`--import`) into a child the bench measures: at exit, the process's peak resident set size
// (getrusage ru_maxrss, which counts its worker threads) is written to BENCH_PEAK_RSS_FILE in bytes.
// Plain JavaScript: the child's worker threads inherit the preload, and Node 20 loads no `.ts` there.
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const path = process.env.BENCH_PEAK_RSS_FILE;
if (path && isMainThread) process.on("exit", () => writeFileSync(path, String(process.resourceUsage().maxRSS * 1024)));
