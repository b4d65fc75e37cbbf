/** `npm run soak` flags, checked with exact messages. */
import { parseArgs } from "node:util";

export const SOAK_USAGE = `usage: npm run soak -- [--minutes 10] [--videos 50000] [options]

  --minutes M        how long the mixed load runs (default 10; fractions allowed)
  --videos N         videos in the served artifact set (default 50000)
  --seed S           corpus seed (default 1)
  --words W          mean transcript words per video (default 300; the corpus default is 1400,
                     which makes a 50K build take far longer without changing what the soak tests)
  --concurrency C    requests in flight at once (default 16)
  --max-growth G     largest accepted growth of the anonymous-RSS floor (heap, buffers; not the mapped
                     database), last third of the run against the first third after warm-up (default 0.5)

The dataset is built once under .bench/soak-<videos>v-s<seed>-w<words>/ and reused.
Exit codes: 0 passed, 1 a 5xx or unbounded memory growth, 2 usage.`;

export interface SoakOptions {
  minutes: number;
  videos: number;
  seed: number;
  words: number;
  concurrency: number;
  maxGrowth: number;
}

export class UsageError extends Error {}

function numberOption(values: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number, integer: boolean): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new UsageError(`Expected the "--${name}" option to be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
  }
  return value;
}

export function parseSoakArgs(argv: string[]): SoakOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        minutes: { type: "string" },
        videos: { type: "string" },
        seed: { type: "string" },
        words: { type: "string" },
        concurrency: { type: "string" },
        "max-growth": { type: "string" },
      },
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    minutes: numberOption(values, "minutes", 10, 0.05, 1440, false),
    videos: numberOption(values, "videos", 50_000, 100, 10_000_000, true),
    seed: numberOption(values, "seed", 1, 0, 2 ** 31, true),
    words: numberOption(values, "words", 300, 20, 100_000, true),
    concurrency: numberOption(values, "concurrency", 16, 1, 200, true),
    maxGrowth: numberOption(values, "max-growth", 0.5, 0, 100, false),
  };
}
