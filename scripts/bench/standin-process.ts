/**
 * The YouTube stand-in serving the bench's synthetic corpus (same seed and
 * size as the direct build, default transcript lengths), as its own process
 * so the pipeline crawls and fetches it over loopback like the real site.
 *
 *   node --import tsx scripts/bench/standin-process.ts --videos N --seed S --channels-file FILE [--workers W]
 * writes the channel list (one channel id a line) and prints the origin on stdout's first line.
 *
 * With `--workers W` above 1 it is W processes on one port (node:cluster),
 * because the stand-in is playing YouTube: generating a video's text on
 * every look-up costs it more CPU per transcript than the pipeline spends,
 * and one process of it would make the bench measure the stand-in. Every
 * worker answers every request alike: the corpus is deterministic and the
 * stand-in keeps no state between requests.
 */
import cluster from "node:cluster";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { startStandin } from "../youtube-standin/server.js";

const { values } = parseArgs({
  options: { videos: { type: "string" }, seed: { type: "string" }, "channels-file": { type: "string" }, workers: { type: "string" } },
});
const videos = Number(values.videos);
const seed = Number(values.seed);
const workers = Number(values.workers ?? "1");
if (!Number.isSafeInteger(videos) || videos < 1 || !Number.isSafeInteger(seed) || seed < 0 || !values["channels-file"] || !Number.isSafeInteger(workers) || workers < 1) {
  process.stderr.write("usage: standin-process.ts --videos N --seed S --channels-file FILE [--workers W]\n");
  process.exit(2);
}

if (workers > 1 && cluster.isPrimary) {
  await runPrimary(workers);
} else {
  await runServer();
}

/** One stand-in server; in a worker, it reports its origin to the primary instead of printing it. */
async function runServer(): Promise<void> {
  const corpus = createSyntheticCorpus({ seed, videos });
  if (cluster.isPrimary) writeFileSync(values["channels-file"]!, corpus.channels.map((c) => c.channelId).join("\n") + "\n");
  // Workers all listen on port 0: cluster gives them one shared port.
  const standin = await startStandin({ corpus });
  if (cluster.isPrimary) process.stdout.write(`${standin.origin}\n`);
  else process.send!({ origin: standin.origin });
  const stop = (): void => {
    process.stderr.write(`stand-in${cluster.isPrimary ? "" : ` worker ${process.pid}`} served ${standin.stats.total} requests\n`);
    standin.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** Writes the channel list, starts the workers, prints their shared origin once all listen, and stops them with itself. */
async function runPrimary(count: number): Promise<void> {
  let stopping = false;
  const corpus = createSyntheticCorpus({ seed, videos });
  writeFileSync(values["channels-file"]!, corpus.channels.map((c) => c.channelId).join("\n") + "\n");
  const origins = await Promise.all(
    Array.from({ length: count }, () => {
      const worker = cluster.fork();
      worker.on("exit", (code, signal) => {
        if (!stopping) {
          process.stderr.write(`stand-in worker ${worker.process.pid} exited with ${signal ?? code}\n`);
          process.exit(1);
        }
      });
      return new Promise<string>((resolve) => worker.once("message", (message: { origin: string }) => resolve(message.origin)));
    }),
  );
  if (new Set(origins).size !== 1) throw new Error(`the stand-in workers listen on different origins: ${origins.join(", ")}`);
  process.stdout.write(`${origins[0]}\n`);
  const stop = (): void => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    // Each worker reports its count and exits on SIGTERM; the primary goes last.
    Promise.all(running.map((worker) => new Promise((resolve) => worker.once("exit", resolve)))).then(() => process.exit(0));
    for (const worker of running) worker.process.kill("SIGTERM");
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
