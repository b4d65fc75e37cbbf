/**
 * A synthetic stand-in as its own process, for measuring the pipeline:
 *   npx tsx test/pipeline/helpers/standin-main.ts --videos 2000 --list /tmp/channels.txt
 * Prints the origin on stdout's first line.
 */
import { parseArgs } from "node:util";
import { startSyntheticStandin, writeChannelList } from "./synthetic-standin.js";

const { values } = parseArgs({
  options: { videos: { type: "string", default: "2000" }, seed: { type: "string", default: "7" }, list: { type: "string" }, port: { type: "string", default: "0" } },
});
const running = await startSyntheticStandin({ videos: Number(values.videos), seed: Number(values.seed), port: Number(values.port) });
if (values.list) writeChannelList(values.list, running.corpus);
process.stdout.write(`${running.standin.origin}\n`);
process.stderr.write(`stand-in: ${values.videos} videos in ${running.corpus.channels.length} channels\n`);
const stop = (): void => {
  process.stderr.write(`stand-in served ${running.standin.stats.total} requests\n`);
  running.close().then(() => process.exit(0), () => process.exit(1));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
