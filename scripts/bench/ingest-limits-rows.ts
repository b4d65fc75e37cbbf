/**
 * The report's rows of the ingest-limits phase: per run (1 worker, 3
 * workers, …) its throughput against the ideal the budget allows, blocked
 * answers, requests during a cool-down, videos fetched twice and videos
 * lost, each held to the issue's target.
 */
import type { IngestLimitsFigures, IngestLimitsRun } from "./ingest-limits.js";
import type { Row } from "./report.js";

const check = (ok: boolean): "PASS" | "MISS" => (ok ? "PASS" : "MISS");
const num = (v: number) => Math.round(v).toLocaleString("en-US");
const pct = (v: number) => `${(v * 100).toFixed(v < 0.1 ? 2 : 1)}%`;

/** Requests per second the budget allows all exits together. */
export function idealRequestsPerSecond(f: Pick<IngestLimitsFigures, "exits" | "budget" | "windowMs">): number {
  return (f.exits * f.budget * 1000) / f.windowMs;
}

/** Throughput of one run: answered requests and videos ended per second of the span the exits were used, and the share of the ideal. */
export function runThroughput(f: IngestLimitsFigures, run: IngestLimitsRun) {
  const served = run.requests.total - run.requests.blocked;
  const span = Math.max(run.spanSeconds, 1e-9);
  const requestsPerSecond = served / span;
  const ideal = idealRequestsPerSecond(f);
  // What a video costs in requests, the crawl's pages included: the ideal in videos follows from it.
  const requestsPerVideo = served / Math.max(1, run.videos.corpus);
  return {
    requestsPerSecond,
    videosPerSecond: (run.videos.stored + run.videos.permanent) / span,
    share: requestsPerSecond / ideal,
    ideal,
    requestsPerVideo,
    idealVideosPerSecond: ideal / requestsPerVideo,
  };
}

/** One row per target, each giving every run's figure (1 worker; 3 workers; …): the verdict passes when every run meets it. */
export function ingestLimitsRows(f: IngestLimitsFigures | { url: string; skipped: string }, load: string): Row[] {
  const base = "12 ingestion under limits";
  if ("skipped" in f) return [{ section: `${base}${load}`, metric: "npm run pipeline -- run and worker through limited exits", value: `not run: ${f.skipped}`, target: "≥ 90% of ideal", verdict: "" }];
  const section =
    `${base}: ${num(f.size)} videos, ${f.exits} exits of ${f.budget} requests per ${f.windowMs / 1000} s (then 429, Retry-After ${f.coolDownMs / 1000} s) = ` +
    `ideal ${num(idealRequestsPerSecond(f))} requests/s; YOUTUBE_EXIT_RATE=${f.exitRatePerMinute} (95%), YOUTUBE_EXIT_IN_FLIGHT=${f.exitInFlight}${load}`;
  const who = (run: IngestLimitsRun) => `${run.workers} worker${run.workers === 1 ? "" : "s"} + run (exits ${run.hosts.map((h) => h.exits).join("/")}, load ${run.load})`;
  const row = (metric: string, target: string, value: (run: IngestLimitsRun) => string, ok: (run: IngestLimitsRun) => boolean): Row => ({
    section,
    metric,
    value: f.runs.map((run) => `${who(run)}: ${value(run)}`).join("; "),
    target,
    verdict: f.runs.length > 0 ? check(f.runs.every(ok)) : "",
  });
  const blocked = (run: IngestLimitsRun) => run.requests.blocked / Math.max(1, run.requests.total);
  return [
    row("throughput: answered requests/s from first to last request, and videos/s", "≥ 90% of ideal", (run) => {
      const t = runThroughput(f, run);
      return (
        `${t.requestsPerSecond.toFixed(1)}/s = ${pct(t.share)} of ideal, ${t.videosPerSecond.toFixed(1)} videos/s of ${t.idealVideosPerSecond.toFixed(1)} ` +
        `(${t.requestsPerVideo.toFixed(2)} requests a video, crawl included), ${run.spanSeconds.toFixed(0)} s (run ${run.runSeconds.toFixed(0)} s)`
      );
    }, (run) => runThroughput(f, run).share >= 0.9),
    row("blocked answers", "≤ 1%", (run) => `${num(run.requests.blocked)} of ${num(run.requests.total)} = ${pct(blocked(run))}`, (run) => blocked(run) <= 0.01),
    row(
      "requests to an exit during its announced cool-down",
      "0",
      (run) => `${num(run.requests.duringCoolDown)}${run.requests.notThroughExits ? ` (+${num(run.requests.notThroughExits)} not through an exit)` : ""}`,
      (run) => run.requests.duringCoolDown === 0 && run.requests.notThroughExits === 0,
    ),
    row(
      "videos fetched twice (caption, or player answer without captions, served twice)",
      "0",
      (run) => `${num(run.videos.fetchedTwice)} (player served again after a block: ${num(run.videos.playerAgain)})`,
      (run) => run.videos.fetchedTwice === 0,
    ),
    row(
      "videos lost (neither stored nor recorded permanent)",
      "0",
      (run) =>
        `${num(run.videos.lost)} of ${num(run.videos.corpus)}, stored ${num(run.videos.stored)} of ${num(run.videos.withTranscript)} with a transcript, ${num(run.videos.permanent)} permanent` +
        `${run.videos.wronglyPermanent ? ` (${num(run.videos.wronglyPermanent)} with a transcript)` : ""}, exit ${run.exitCode}`,
      (run) => run.videos.lost === 0 && run.videos.wronglyPermanent === 0,
    ),
  ];
}
