/**
 * `npm run soak -- --minutes 10 --videos 50000`: mixed load against the real
 * server over a large dataset, with live fetches from the local stand-in, on
 * 127.0.0.1 only. Passes when no answer is a 5xx, no request fails at the
 * transport level, and the server's anonymous RSS grows less than --max-growth from the
 * end of warm-up to the end. Not part of `npm test`. See scripts/soak/options.ts.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createRandom } from "../pipeline/corpus/random.js";
import { startStandin } from "./youtube-standin/server.js";
import { openKeyStore } from "../server/auth/key-store.js";
import { prepareDataset } from "./soak/dataset.js";
import { floorGrowth } from "./soak/memory-growth.js";
import { count5xx, percentile, runMixedLoad, type LoadTally } from "./soak/mixed-load.js";
import { parseSoakArgs, SOAK_USAGE, UsageError } from "./soak/options.js";
import { startServerChild } from "./soak/server-child.js";

const REPO_ROOT = path.resolve(import.meta.dirname, "..");
const BUSY_KEYS = 200;
// The free key gets ~4 % of the load: past ~63 requests/s it reaches this limit and sees 429s; the 200 pro keys never do.
const RATE_LIMIT = 150;
const MiB = 1024 * 1024;
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseSoakArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${SOAK_USAGE}\n`);
    return 2;
  }
  const dataset = await prepareDataset(options, REPO_ROOT, log);
  log(`${dataset.reused ? "reusing" : "built"} ${path.relative(REPO_ROOT, dataset.dataDir)} (${dataset.stored} stored videos, ${dataset.corpus.videoCount - dataset.stored} only at the stand-in)`);
  // Live fetches of an earlier soak would make this one's "missing" videos stored ones.
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path.join(dataset.dataDir, `live.db${suffix}`), { force: true });

  const keyStore = openKeyStore({ dataDir: dataset.dataDir });
  for (const record of keyStore.list()) if (record.name.startsWith("soak-") && record.revokedAt === null) keyStore.revoke(record.keyId);
  const busy = Array.from({ length: BUSY_KEYS }, (_, i) => keyStore.create({ plan: "pro", name: `soak-${i}` }).key);
  const limited = keyStore.create({ plan: "free", name: "soak-limited" }).key;
  keyStore.close();

  const standin = await startStandin({ corpus: dataset.corpus, port: 0, host: "127.0.0.1" });
  const logsDir = path.join(dataset.root, "logs");
  mkdirSync(logsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const server = await startServerChild({
    repoRoot: REPO_ROOT,
    logFile: path.join(logsDir, `soak-server-${stamp}.log`),
    env: {
      DATA_DIR: dataset.dataDir,
      YOUTUBE_ORIGIN: standin.origin,
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      LOG_LEVEL: "info",
      ACCESS_LOG: "off",
    },
  });
  log(`server ${server.origin} (pid ${server.process.pid}), stand-in ${standin.origin}; ${options.concurrency} clients for ${options.minutes} min`);

  const durationMs = options.minutes * 60_000;
  const warmupMs = Math.min(60_000, durationMs / 10);
  const rssAtListen = server.rssBytes();
  const anonAtListen = server.anonRssBytes();
  const samples: { t: number; rssMiB: number; anonMiB: number }[] = [];
  const t0 = performance.now();
  const sampler = setInterval(
    () => samples.push({ t: Math.round((performance.now() - t0) / 1000), rssMiB: mib(server.rssBytes()), anonMiB: mib(server.anonRssBytes()) }),
    5_000,
  );
  let rssAfterWarmup = 0;
  let anonAfterWarmup = 0;
  const warmup = setTimeout(() => {
    rssAfterWarmup = server.rssBytes();
    anonAfterWarmup = server.anonRssBytes();
  }, warmupMs);

  let tally: LoadTally;
  try {
    tally = await runMixedLoad({
      origin: server.origin,
      corpus: dataset.corpus,
      stored: dataset.stored,
      keys: { busy, limited },
      concurrency: options.concurrency,
      maxLiveFetches: 6,
      durationMs,
      random: (() => {
        const random = createRandom(options.seed, 0x50a4);
        return () => random.float();
      })(),
      onProgress: (elapsed, t) => {
        const total = Object.values(t.byKind).reduce((n, k) => n + k.count, 0);
        log(`${Math.round(elapsed / 1000)} s: ${total} requests, ${count5xx(t)} 5xx, RSS ${mib(server.rssBytes())} MiB (anonymous ${mib(server.anonRssBytes())} MiB)`);
      },
    });
  } finally {
    clearInterval(sampler);
    clearTimeout(warmup);
  }
  const rssEnd = server.rssBytes();
  const anonEnd = server.anonRssBytes();
  const exitCode = await server.stop();
  await standin.close();

  const seconds = (performance.now() - t0) / 1000;
  const all = Object.values(tally.byKind).flatMap((k) => k.latencies).sort((a, b) => a - b);
  const byKind = Object.fromEntries(
    Object.entries(tally.byKind).map(([kind, k]) => {
      const sorted = [...k.latencies].sort((a, b) => a - b);
      return [kind, { count: k.count, statuses: k.statuses, p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)) }];
    }),
  );
  const serverErrors = count5xx(tally);
  const base = rssAfterWarmup || rssAtListen;
  // The check is on anonymous memory: the memory-mapped database's pages count in RSS as they are
  // touched (bounded by the mmap size) and are reclaimable cache, not growth of the process.
  const anonBase = anonAfterWarmup || anonAtListen;
  const floors = floorGrowth(samples, warmupMs / 1000, seconds);
  // Runs too short for two windows fall back to the end against the end of warm-up.
  const growth = floors.growth ?? anonEnd / anonBase - 1;
  const passed = serverErrors === 0 && tally.transportErrors === 0 && growth <= options.maxGrowth && exitCode === 0;
  const result = {
    command: `npm run soak -- ${process.argv.slice(2).join(" ")}`.trim(),
    options,
    finishedAt: new Date().toISOString(),
    seconds: round(seconds),
    requests: all.length,
    requestsPerSecond: round(all.length / seconds),
    p50Ms: round(percentile(all, 50)),
    p99Ms: round(percentile(all, 99)),
    serverErrors,
    transportErrors: tally.transportErrors,
    serverErrorSamples: tally.serverErrors,
    liveFetched: tally.byKind.missing?.statuses["200"] ?? 0,
    rssMiB: { atListen: mib(rssAtListen), afterWarmup: mib(base), end: mib(rssEnd), max: Math.max(0, ...samples.map((s) => s.rssMiB)) },
    anonRssMiB: { atListen: mib(anonAtListen), afterWarmup: mib(anonBase), end: mib(anonEnd), max: Math.max(0, ...samples.map((s) => s.anonMiB)) },
    anonRssFloorMiB: { early: floors.earlyFloorMiB, late: floors.lateFloorMiB },
    anonRssGrowth: round(growth * 100) / 100,
    serverExitCode: exitCode,
    byKind,
    rssSamples: samples,
    passed,
  };
  writeFileSync(path.join(dataset.root, `soak-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    [
      `soak ${passed ? "PASSED" : "FAILED"}: ${result.requests} requests in ${result.seconds} s (${result.requestsPerSecond}/s), ${options.concurrency} clients, ${dataset.stored} stored videos`,
      `  5xx: ${serverErrors}   transport errors: ${tally.transportErrors}   live fetches answered 200: ${result.liveFetched}`,
      `  latency: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
      ...Object.entries(byKind).map(([kind, k]) => `    ${kind.padEnd(12)} ${String(k.count).padStart(8)}  p50 ${k.p50Ms} ms  p99 ${k.p99Ms} ms  ${JSON.stringify(k.statuses)}`),
      `  RSS: ${result.rssMiB.atListen} MiB at listen, ${result.rssMiB.afterWarmup} MiB after warm-up, ${result.rssMiB.end} MiB at the end (${pct(rssEnd / base - 1)}), max ${result.rssMiB.max} MiB`,
      `  anonymous RSS: ${result.anonRssMiB.atListen} → ${result.anonRssMiB.afterWarmup} → ${result.anonRssMiB.end} MiB, max ${result.anonRssMiB.max} MiB; ` +
        (floors.growth === undefined
          ? `growth after warm-up ${pct(growth)} (run too short for floors)`
          : `floor ${floors.earlyFloorMiB} MiB in the first third after warm-up, ${floors.lateFloorMiB} MiB in the last third: growth ${pct(growth)}`) +
        ` (limit ${pct(options.maxGrowth)})`,
      `  server exit code after SIGTERM: ${exitCode}`,
      `  results: ${path.relative(REPO_ROOT, path.join(dataset.root, `soak-${stamp}.json`))}`,
      "",
    ].join("\n"),
  );
  return passed ? 0 : 1;
}

const round = (n: number) => Math.round(n * 100) / 100;
const mib = (bytes: number) => Math.round(bytes / MiB);
const pct = (fraction: number) => `${fraction >= 0 ? "+" : ""}${(fraction * 100).toFixed(1)} %`;

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
