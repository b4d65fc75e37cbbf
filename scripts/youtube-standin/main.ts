/**
 * Runs the stand-in on its own: `npm run standin -- --port 4001 --videos 1000 --seed 1`.
 * Prints the origin on the first line of stdout, so scripts can read it.
 */
import { parseArgs } from "node:util";
import { demoCorpus, demoVideoIds } from "./demo-corpus.js";
import { startStandin } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    videos: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    "recordings-dir": { type: "string" },
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

const corpusOptions = { videos: integer("videos", values.videos, 0), seed: integer("seed", values.seed, 0) };
const standin = await startStandin({
  port: integer("port", values.port, 0),
  host: values.host ?? "127.0.0.1",
  corpus: demoCorpus(corpusOptions),
  ...(values["recordings-dir"] ? { recordingsDir: values["recordings-dir"] } : {}),
});
process.stdout.write(`${standin.origin}\n`);
process.stderr.write(
  `YouTube stand-in: ${corpusOptions.videos} videos (seed ${corpusOptions.seed}); try ${standin.origin}/watch?v=${demoVideoIds(corpusOptions, 1)[0] ?? "fixtureOKAY"}\n`,
);

const shutdown = (): void => {
  standin.close().then(() => process.exit(0), () => process.exit(1));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
