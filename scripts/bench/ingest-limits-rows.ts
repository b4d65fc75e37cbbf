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

export function ingestLimitsRows(f: IngestLimitsFigures | { url: string; skipped: string }, load: string): Row[] {
  const base = "12 ingestion under limits";
  if ("skipped" in f) return [{ section: `${base}${load}`, metric: "npm run pipeline -- run and worker through limited exits", value: `not run: ${f.skipped}`, target: "≥ 90% of ideal", verdict: "" }];
  const section =
    `${base}: ${num(f.size)} videos, ${f.exits} exits of ${f.budget} requests per ${f.windowMs / 1000} s (then 429, Retry-After ${f.coolDownMs / 1000} s), ` +
    `ideal ${num(idealRequestsPerSecond(f))} requests/s; YOUTUBE_EXIT_RATE=${f.exitRatePerMinute} (95%), YOUTUBE_EXIT_IN_FLIGHT=${f.exitInFlight}${load}`;
  const rows: Row[] = [];
  for (const run of f.runs) {
    const t = runThroughput(f, run);
    const who = `${run.workers} worker${run.workers === 1 ? "" : "s"} + the run (exits ${run.hosts.map((h) => h.exits).join("/")}) [load ${run.load}]`;
    const { requests: r, videos: v } = run;
    rows.push({
      section,
      metric: `${who}: throughput`,
      value:
        `${t.requestsPerSecond.toFixed(1)} requests/s = ${pct(t.share)} of ideal; ${t.videosPerSecond.toFixed(1)} videos/s of ideal ${t.idealVideosPerSecond.toFixed(1)} ` +
        `(${t.requestsPerVideo.toFixed(2)} requests a video, crawl included); ${run.spanSeconds.toFixed(0)} s first to last request, run ${run.runSeconds.toFixed(0)} s`,
      target: "≥ 90% of ideal",
      verdict: check(t.share >= 0.9),
    });
    const blocked = r.blocked / Math.max(1, r.total);
    rows.push({ section, metric: `${who}: blocked answers`, value: `${num(r.blocked)} of ${num(r.total)} requests = ${pct(blocked)}`, target: "≤ 1%", verdict: check(blocked <= 0.01) });
    rows.push({
      section,
      metric: `${who}: requests to an exit during its announced cool-down`,
      value: `${num(r.duringCoolDown)}${r.notThroughExits ? `; ${num(r.notThroughExits)} not through an exit` : ""}`,
      target: "0",
      verdict: check(r.duringCoolDown === 0 && r.notThroughExits === 0),
    });
    rows.push({
      section,
      metric: `${who}: videos fetched twice (caption body, or player answer without captions, served twice)`,
      value: `${num(v.fetchedTwice)}; player answer served again after a block: ${num(v.playerAgain)}`,
      target: "0",
      verdict: check(v.fetchedTwice === 0),
    });
    rows.push({
      section,
      metric: `${who}: videos lost (neither stored nor recorded permanent)`,
      value:
        `${num(v.lost)} of ${num(v.corpus)}; stored ${num(v.stored)} of ${num(v.withTranscript)} with a transcript, ${num(v.permanent)} permanent` +
        `${v.wronglyPermanent ? ` (${num(v.wronglyPermanent)} of them with a transcript)` : ""}; run exit ${run.exitCode}`,
      target: "0",
      verdict: check(v.lost === 0 && v.wronglyPermanent === 0),
    });
  }
  return rows;
}
