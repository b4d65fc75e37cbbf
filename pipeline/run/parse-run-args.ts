/** The `run` command's flags, checked with exact messages; any problem is a UsageError (exit 2). */
import { parseArgs } from "node:util";
import { UsageError } from "../command/exit-codes.js";

export const RUN_USAGE = `usage: npm run pipeline -- run --channels FILE [options]

  --channels FILE         channel list: one UC… id, @handle, channel URL or playlist (PL…, list=) a line; # comments
  --dry-run               crawl and report what would be fetched; write, fetch and build nothing
  --limit N               fetch at most N transcripts this run
  --concurrency N         transcript fetches at once (default 8; channels: up to 4 at once)
  --rate N/s              at most N fetches started per second (also N/min, N/h); one fetch = 3 requests
  --no-build              do not build and publish an artifact set at the end
  --force                 build and publish even when nothing is new, and publish even a set
                          that drops most of the served set's transcripts
  --origin URL            YouTube origin (default: YOUTUBE_ORIGIN, else https://www.youtube.com)
  --languages en,de       preferred transcript languages (default en; other videos get their own track)
  --retries N             in-run retries of a transient failure, with backoff (default 2)
  --retry-failed-after D  try permanent failures (no transcript, unavailable) again after D days (default 30)
  --recrawl-after M       skip channels crawled less than M minutes ago (default 30; 0 always crawls)
  --timeout-ms MS         limit of each YouTube request (default 15000)

A run that finds nothing new since the set it last published (no new or changed transcripts,
no live-fetched records to fold) skips the build and publish, says so, and exits 0 (4 with failures).

exit codes: 0 ok (also: nothing new, nothing built), 1 failed, 2 usage, 3 another run holds the lock,
            4 finished with failures a later run may fix, 5 publish refused (see --force), 130 interrupted`;

export interface RunArgs {
  channelsFile: string;
  dryRun: boolean;
  limit?: number;
  concurrency: number;
  rate?: { count: number; intervalMs: number };
  build: boolean;
  force: boolean;
  origin?: string;
  languages: string[];
  retries: number;
  retryPermanentAfterMs: number;
  recrawlAfterMs: number;
  timeoutMs: number;
}

export function parseRunArgs(argv: string[]): RunArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        channels: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        limit: { type: "string" },
        concurrency: { type: "string", default: "8" },
        rate: { type: "string" },
        "no-build": { type: "boolean", default: false },
        force: { type: "boolean", default: false },
        origin: { type: "string" },
        languages: { type: "string", default: "en" },
        retries: { type: "string", default: "2" },
        "retry-failed-after": { type: "string", default: "30" },
        "recrawl-after": { type: "string", default: "30" },
        "timeout-ms": { type: "string", default: "15000" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const channelsFile = values.channels;
  if (typeof channelsFile !== "string" || channelsFile === "") throw new UsageError('Expected the "--channels" option to name a channel list file');
  const languages = String(values.languages)
    .split(",")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  if (languages.length === 0 || languages.some((l) => !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(l))) {
    throw new UsageError('Expected the "--languages" option to be comma-separated language codes, like en,de');
  }
  const args: RunArgs = {
    channelsFile,
    dryRun: values["dry-run"] === true,
    concurrency: integer("concurrency", values.concurrency, 1, 256),
    build: values["no-build"] !== true,
    force: values.force === true,
    languages,
    retries: integer("retries", values.retries, 0, 10),
    retryPermanentAfterMs: integer("retry-failed-after", values["retry-failed-after"], 0, 36_500) * 86_400_000,
    recrawlAfterMs: integer("recrawl-after", values["recrawl-after"], 0, 525_600) * 60_000,
    timeoutMs: integer("timeout-ms", values["timeout-ms"], 100, 600_000),
  };
  if (values.limit !== undefined) args.limit = integer("limit", values.limit, 0, Number.MAX_SAFE_INTEGER);
  if (values.rate !== undefined) args.rate = parseRate(String(values.rate));
  if (values.origin !== undefined) {
    const origin = String(values.origin);
    if (!/^https?:\/\/[^/]+\/?$/.test(origin)) throw new UsageError('Expected the "--origin" option to be a scheme and host, like http://127.0.0.1:4001');
    args.origin = origin;
  }
  return args;
}

function integer(name: string, raw: string | boolean | undefined, min: number, max: number): number {
  const text = String(raw ?? "");
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`Expected the "--${name}" option to be a whole number from ${min} to ${max}`);
  }
  return n;
}

const RATE_UNITS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, m: 60_000, h: 3_600_000 };

/** "20", "20/s", "300/min", "5000/h". */
export function parseRate(text: string): { count: number; intervalMs: number } {
  const match = /^(\d+)(?:\/(s|sec|min|m|h))?$/.exec(text.trim());
  const count = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(count) || count < 1) {
    throw new UsageError('Expected the "--rate" option to be a count per interval, like 20/s, 300/min or 5000/h');
  }
  return { count, intervalMs: RATE_UNITS[match[2] ?? "s"] ?? 1000 };
}
