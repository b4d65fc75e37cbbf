/**
 * Runs the stand-in on its own: `npm run standin -- --port 4001 --videos 1000 --seed 1`.
 * Prints the origin on the first line of stdout, so scripts can read it.
 * `--limit-budget N` turns on YouTube's limits per client address (limits.ts),
 * with `--limit-window-ms`, `--limit-cool-down-ms` and `--limit-answer`.
 */
import { parseArgs } from "node:util";
import { demoCorpus, demoVideoIds } from "./demo-corpus.js";
import { startExitProxies } from "./exit-proxy.js";
import { BLOCK_ANSWERS, type BlockAnswer, type LimitsConfig } from "./limits.js";
import { startStandin } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    videos: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    "recordings-dir": { type: "string" },
    "exit-proxies": { type: "string", default: "0" },
    "limit-budget": { type: "string" },
    "limit-window-ms": { type: "string", default: "60000" },
    "limit-cool-down-ms": { type: "string", default: "60000" },
    "limit-answer": { type: "string", default: "rate-limit" },
  },
});

function integer(name: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`Expected --${name} to be an integer of at least ${min}\n`);
    process.exit(2);
  }
  return n;
}

function limits(): LimitsConfig | undefined {
  if (values["limit-budget"] === undefined) return undefined;
  const answer = values["limit-answer"] as BlockAnswer;
  if (!BLOCK_ANSWERS.includes(answer)) {
    process.stderr.write(`Expected --limit-answer to be one of ${BLOCK_ANSWERS.join(", ")}\n`);
    process.exit(2);
  }
  return {
    budget: integer("limit-budget", values["limit-budget"], 1),
    windowMs: integer("limit-window-ms", values["limit-window-ms"], 1),
    coolDownMs: integer("limit-cool-down-ms", values["limit-cool-down-ms"], 1),
    answer,
  };
}

const limitsConfig = limits();
const corpusOptions = { videos: integer("videos", values.videos, 0), seed: integer("seed", values.seed, 0) };
const standin = await startStandin({
  port: integer("port", values.port, 0),
  host: values.host ?? "127.0.0.1",
  corpus: demoCorpus(corpusOptions),
  ...(values["recordings-dir"] ? { recordingsDir: values["recordings-dir"] } : {}),
  ...(limitsConfig ? { limits: limitsConfig } : {}),
});
process.stdout.write(`${standin.origin}\n`);
if (limitsConfig) {
  process.stderr.write(
    `limits: ${limitsConfig.budget} requests per ${limitsConfig.windowMs} ms per client address, then ${limitsConfig.answer} for ${limitsConfig.coolDownMs} ms; record at ${standin.origin}/__standin/limits\n`,
  );
}
process.stderr.write(
  `YouTube stand-in: ${corpusOptions.videos} videos (seed ${corpusOptions.seed}); try ${standin.origin}/watch?v=${demoVideoIds(corpusOptions, 1)[0] ?? "fixtureOKAY"}\n`,
);

const exits = await startExitProxies(integer("exit-proxies", values["exit-proxies"], 0));
if (exits.length > 0) process.stderr.write(`exit proxies (from ${exits.map((e) => e.localAddress).join(", ")}): YOUTUBE_PROXY_URLS=${exits.map((e) => e.url).join(",")}\n`);

const shutdown = (): void => {
  Promise.all(exits.map((e) => e.close()))
    .then(() => standin.close())
    .then(() => process.exit(0), () => process.exit(1));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
