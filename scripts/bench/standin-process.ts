/**
 * The YouTube stand-in serving the bench's synthetic corpus (same seed and
 * size as the direct build, default transcript lengths), as its own process
 * so the pipeline crawls and fetches it over loopback like the real site.
 *
 *   node --import tsx scripts/bench/standin-process.ts --videos N --seed S --channels-file FILE
 * writes the channel list (one channel id a line) and prints the origin on stdout's first line.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { startStandin } from "../youtube-standin/server.js";

const { values } = parseArgs({
  options: { videos: { type: "string" }, seed: { type: "string" }, "channels-file": { type: "string" } },
});
const videos = Number(values.videos);
const seed = Number(values.seed);
if (!Number.isSafeInteger(videos) || videos < 1 || !Number.isSafeInteger(seed) || seed < 0 || !values["channels-file"]) {
  process.stderr.write("usage: standin-process.ts --videos N --seed S --channels-file FILE\n");
  process.exit(2);
}
const corpus = createSyntheticCorpus({ seed, videos });
writeFileSync(values["channels-file"], corpus.channels.map((c) => c.channelId).join("\n") + "\n");
const standin = await startStandin({ corpus });
process.stdout.write(`${standin.origin}\n`);
const stop = (): void => {
  process.stderr.write(`stand-in served ${standin.stats.total} requests\n`);
  standin.close().then(() => process.exit(0), () => process.exit(1));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
