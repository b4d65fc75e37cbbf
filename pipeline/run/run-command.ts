/**
 * `npm run pipeline -- run …`: flags and settings in, progress on stderr,
 * the summary on stdout, an exit code out. Ctrl-C (or SIGTERM) stops
 * gracefully: in-flight fetches are abandoned, everything already fetched is
 * kept, the summary is written, the lock released; a second Ctrl-C exits at once.
 */
import type { Settings } from "../../settings/settings.js";
import { EXIT, UsageError } from "../command/exit-codes.js";
import { parseRunArgs, RUN_USAGE, type RunArgs } from "./parse-run-args.js";
import { createProgress, formatDuration } from "./report-progress.js";
import { runPipeline, type RunSummary } from "./run-pipeline.js";
import { runAsCommand } from "../command/run-as-command.js";
import { exitPolicyFromSettings } from "../youtube/index.js";
import { openPipelineExitState, type PipelineExitState } from "../command/exit-state.js";
import { mkdirSync } from "node:fs";

export async function runCommand(argv: string[], config: Settings<"pipeline">): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${RUN_USAGE}\n`);
    return EXIT.ok;
  }
  let args: RunArgs;
  try {
    args = parseRunArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${RUN_USAGE}\n`);
    return EXIT.usage;
  }
  const origin = args.origin ?? config.youtubeOrigin;
  // The run takes its locks itself, after the channel list is read (a dry run takes none).
  return runAsCommand({
    stop: {
      first: (name) => process.stderr.write(`\n[pipeline] ${name}: stopping after the fetches in flight are abandoned (again to quit at once)\n`),
      again: "exit",
    },
    exits: [[UsageError, EXIT.usage]],
    work: async ({ signal }) => {
      const progress = createProgress({ stream: process.stderr });
      // The exits' state of this host (shared with its server) and of the fleet; a dry run writes nothing, so it keeps its own.
      let exitState: PipelineExitState | undefined;
      if (!args.dryRun) {
        mkdirSync(config.dataDir, { recursive: true });
        exitState = await openPipelineExitState({ ...config, log: (message) => progress.log(message) });
      }
      let summary: RunSummary;
      try {
        summary = await runPipeline({
          dataDir: config.dataDir,
          embedding: config,
          ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl } : {}),
          fetchQueue: { leaseSeconds: config.fetchLeaseSeconds, retryLimit: config.fetchRetryLimit, retryDelaySeconds: config.fetchRetryDelaySeconds },
          channelsFile: args.channelsFile,
          dryRun: args.dryRun,
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          concurrency: args.concurrency,
          ...(args.rate ? { rate: args.rate } : {}),
          build: args.build,
          force: args.force,
          origin,
          proxyUrls: config.youtubeProxyUrls,
          exitPolicy: exitPolicyFromSettings(config, origin),
          ...(exitState ? { exitStore: exitState.store } : {}),
          maxBlockedRetries: config.youtubeMaxBlockedRetries,
          timeoutMs: args.timeoutMs,
          languages: args.languages,
          retries: args.retries,
          retryPermanentAfterMs: args.retryPermanentAfterMs,
          recrawlAfterMs: args.recrawlAfterMs,
          progress,
          signal,
        });
      } finally {
        await exitState?.close();
      }
      process.stdout.write(formatSummary(summary));
      return summary.exitCode;
    },
  });
}

export function formatSummary(s: RunSummary): string {
  const reasons = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .map(([code, n]) => `${code} ${n}`)
      .join(", ") || "none";
  const lines = [
    `pipeline run ${s.outcome} (exit ${s.exitCode}) in ${formatDuration(s.durationSeconds)}${s.dryRun ? " — dry run, nothing written" : ""}`,
    `  channels:    ${s.channels.listed} listed, ${s.channels.crawled} crawled, ${s.channels.skipped} skipped (recently crawled), ${s.channels.failed.length} failed`,
    ...s.channels.failed.map((f) => `               ${f.input}: ${f.code}`),
    `  videos:      ${s.videos.seen} seen, ${s.videos.new} new`,
    s.dryRun
      ? `  transcripts: ${s.transcripts.wanted} would be fetched`
      : `  transcripts: ${s.transcripts.fetched} fetched of ${s.transcripts.wanted} wanted (${s.transcripts.perSecond}/s)`,
    ...(s.dryRun
      ? []
      : [
          `               permanent (recorded, not retried soon): ${reasons(s.transcripts.permanent)}`,
          `               failed (next run retries): ${reasons(s.transcripts.failed)}`,
          `               blocked and fetched again: ${s.transcripts.requeued}`,
          ...exitLines(s),
        ]),
    s.build
      ? `  published:   ${s.build.dir} (${s.build.counts.videos} videos, ${s.build.counts.transcripts} transcripts, liveSeq ${s.build.liveSeq})`
      : s.unchangedSince !== undefined
        ? `  published:   nothing new; ${s.unchangedSince} stays published (--force rebuilds)`
        : `  published:   nothing`,
    ...(s.error ? [`  error:       ${s.error}`] : []),
  ];
  return `${lines.join("\n")}\n`;
}

/** One line for the exits, and one per exit that blocked, failed or is resting at the end. */
function exitLines(s: RunSummary): string[] {
  if (s.exits.length === 0) return [];
  const total = (key: "sent" | "blocked" | "failed"): number => s.exits.reduce((sum, e) => sum + e[key], 0);
  const cooling = s.exits.filter((e) => e.condition === "cooling").length;
  const dead = s.exits.filter((e) => e.condition === "dead").length;
  const resting = cooling + dead;
  const lines = [`  exits:       ${s.exits.length}: ${total("sent")} requests, ${total("blocked")} blocked, ${total("failed")} failed; ${cooling} cooling, ${dead} out at the end`];
  if (s.exits.length > 1 || resting > 0) {
    for (const e of s.exits) if (e.blocked > 0 || e.failed > 0 || e.condition === "cooling" || e.condition === "dead") lines.push(`               ${e.label}: ${e.sent} requests, ${e.blocked} blocked, ${e.failed} failed${e.condition === "dead" ? ", out" : e.condition === "cooling" ? ", cooling" : ""}`);
  }
  return lines;
}
