/**
 * Writes a synthetic corpus (or a slice of one) as JSONL and reports speed.
 *
 *   tsx pipeline/corpus/cli.ts --videos 3000 --seed 1 --out corpus.jsonl
 *   tsx pipeline/corpus/cli.ts --videos 500000 --seed 1 --from 0 --to 100000 --out part-0.jsonl
 *
 * Slices of the same --videos and --seed are parts of the same corpus, so a
 * big corpus can be written by several processes in parallel.
 */
import { parseArgs } from "node:util";
import type { VideoRecord } from "../artifact/contract/index.js";
import { englishSource } from "./english-source.js";
import { createSyntheticCorpus } from "./synthetic.js";
import { writeCorpusJsonl } from "./write-jsonl.js";

const USAGE = "Usage: tsx pipeline/corpus/cli.ts --videos N --seed S --out FILE [--channels C] [--from I] [--to J]";

function integerOption(values: Record<string, string | boolean | undefined>, name: string, required: boolean): number | undefined {
  const raw = values[name];
  if (raw === undefined) {
    if (required) throw new Error(`Expected the "--${name}" option. ${USAGE}`);
    return undefined;
  }
  const value = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new Error(`Expected the "--${name}" option to be a non-negative integer`);
  }
  return value;
}

/** Space-separated tokens of the caption lines: a cheap word count that does not slow the writer down. */
function countTokens(record: VideoRecord): number {
  let words = 0;
  for (const transcript of record.transcripts) {
    for (const segment of transcript.segments) {
      const text = segment.text;
      words++;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 32) words++;
    }
  }
  return words;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      videos: { type: "string" },
      seed: { type: "string" },
      channels: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const out = values.out;
  if (out === undefined) throw new Error(`Expected the "--out" option. ${USAGE}`);
  const videos = integerOption(values, "videos", true) as number;
  const seed = integerOption(values, "seed", true) as number;
  const channels = integerOption(values, "channels", false);
  const from = integerOption(values, "from", false);
  const to = integerOption(values, "to", false);

  const english = englishSource();
  const corpus = createSyntheticCorpus({ seed, videos, english, ...(channels === undefined ? {} : { channels }) });
  const memory = process.memoryUsage();
  console.log(
    `trained on Brown: read ${english.readMs.toFixed(0)} ms, train ${english.trainMs.toFixed(0)} ms, ` +
      `${english.chain.sentences} sentences, ${english.chain.words.length} words, ${english.chain.states} states, ` +
      `chain arrays ${(english.chain.byteLength / 2 ** 20).toFixed(1)} MiB; heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB, rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB`,
  );

  let words = 0;
  const started = performance.now();
  const result = await writeCorpusJsonl(corpus, out, {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    onRecord: (record) => {
      words += countTokens(record);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `wrote ${result.records} videos, ${words} words, ${(result.bytes / 2 ** 20).toFixed(1)} MiB to ${out} in ${seconds.toFixed(2)} s: ` +
      `${(words / seconds / 1e6).toFixed(2)} M words/s, ${(result.records / seconds).toFixed(0)} videos/s`,
  );
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
