/**
 * One table of results with the issue's targets (PASS/MISS), printed to the
 * terminal and written into BENCHMARKS.md, where each corpus size has its own
 * section that a new run of that size replaces.
 */
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { LatencySummary } from "./latency.js";
import type { BenchResults } from "./run.js";

export interface Row {
  section: string;
  metric: string;
  value: string;
  target: string;
  verdict: "PASS" | "MISS" | "";
}

const ms = (v: number) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : "n/a");
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const num = (v: number) => Math.round(v).toLocaleString("en-US");
const check = (ok: boolean): "PASS" | "MISS" => (ok ? "PASS" : "MISS");

function latencyValue(s: LatencySummary): string {
  return `p50 ${ms(s.p50)} · p95 ${ms(s.p95)} · p99 ${ms(s.p99)} (n=${s.count}${s.errors ? `, ${s.errors} errors` : ""}${s.truncated ? ", budget hit" : ""})`;
}

export function resultRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const load = (phase: keyof BenchResults["load"]) => (r.load[phase] !== undefined ? ` [load ${r.load[phase]}]` : "");
  const b = r.build;
  if (b) {
    const s = `1 corpus+artifacts${b.reused ? " (reused)" : ""}`;
    rows.push({ section: s, metric: "corpus", value: `${num(b.records)} videos, ${num(b.transcripts)} searchable transcripts, ${num(b.totalWords)} words, JSONL ${mib(b.corpusBytes)}${b.generateSeconds !== undefined ? `, generated in ${b.generateSeconds.toFixed(0)} s` : ""}`, target: "", verdict: "" });
    if (b.mode === "direct") {
      rows.push({ section: s, metric: "fetched through the stand-in", value: "not run: built directly from the generator's JSONL (--direct)", target: "", verdict: "" });
      rows.push({ section: s, metric: "records stored (stage: parse, validate, staging db)", value: `${b.stageSeconds.toFixed(1)} s = ${num(b.records / Math.max(b.stageSeconds, 1e-9))} records/s`, target: "", verdict: "" });
      rows.push({ section: s, metric: "index build (final db in popularity order, FTS5, optimize, term stats)", value: `${b.indexSeconds.toFixed(1)} s`, target: "", verdict: "" });
      rows.push({ section: s, metric: "title index (FlexSearch)", value: `${b.titleIndexSeconds.toFixed(1)} s`, target: "", verdict: "" });
      rows.push({ section: s, metric: "whole build incl. checksums", value: `${b.buildSeconds.toFixed(1)} s = ${num(b.transcripts / Math.max(b.buildSeconds, 1e-9))} transcripts/s stored; peak RSS ${num(b.peakRssMiB)} MiB [load ${b.loadAverage} at end]`, target: "", verdict: "" });
    } else {
      const fetchSeconds = b.fetchSeconds ?? Number.NaN;
      rows.push({ section: s, metric: "crawl + fetch through the stand-in (npm run pipeline -- run, concurrency 8)", value: `${fetchSeconds.toFixed(1)} s: ${num(b.fetched ?? 0)} transcripts fetched and stored = ${((b.fetched ?? 0) / fetchSeconds).toFixed(1)}/s; ${b.fetchFailures ?? 0} failures; stand-in peak RSS ${b.standinPeakRssMiB ?? "?"} MiB`, target: "", verdict: "" });
      rows.push({ section: s, metric: "build + publish (inside the run)", value: `${b.buildSeconds.toFixed(1)} s = ${num(b.transcripts / Math.max(b.buildSeconds, 1e-9))} transcripts/s [load ${b.loadAverage} at end]`, target: "", verdict: "" });
    }
    rows.push({ section: s, metric: "artifact sizes", value: `transcripts.db ${mib(b.databaseBytes)}, titles ${mib(b.titleIndexBytes)}`, target: "", verdict: "" });
    const fullPath = b.mode === "pipeline" && b.fetchSeconds !== undefined;
    rows.push({
      section: s,
      metric: "full pipeline (crawl + fetch + build + publish)",
      value: fullPath ? `${((b.fetchSeconds! + b.buildSeconds) / 60).toFixed(1)} min` : "not measured (direct build)",
      target: "< 60 min",
      verdict: fullPath ? check(b.fetchSeconds! + b.buildSeconds < 3600) : "",
    });
  }
  if (r.server) {
    const s = `2 server${load("server")}`;
    rows.push({ section: s, metric: "start to first answer (/healthz)", value: `${(r.server.startMs / 1000).toFixed(2)} s${r.server.restartMs !== undefined ? ` (restart: ${(r.server.restartMs / 1000).toFixed(2)} s)` : ""}`, target: "≤ 30 s", verdict: check(r.server.startMs <= 30_000) });
    rows.push({ section: s, metric: "RSS after load", value: `${num(r.server.rssAfterLoadMiB)} MiB`, target: "≤ 8 GiB", verdict: check(r.server.rssAfterLoadMiB <= 8192) });
  }
  if (r.soak) {
    const k = r.soak;
    const s = `2 server, mixed load${load("soak")}`;
    rows.push({ section: s, metric: `RSS over ${(k.seconds / 60).toFixed(1)} min of mixed load (4 clients)`, value: `${num(k.rssStartMiB)} → ${num(k.rssEndMiB)} MiB (max ${num(k.rssMaxMiB)}), ${(k.growth * 100).toFixed(1)}%; ${num(k.requests)} requests, ${k.errors} errors`, target: "≤ 10% growth", verdict: check(k.growth <= 0.1) });
    if (r.server) {
      const sinceStart = k.rssEndMiB / r.server.rssAfterLoadMiB - 1;
      rows.push({ section: s, metric: "RSS at end vs right after start (includes warm-up of caches by phases 3-5)", value: `${(sinceStart * 100).toFixed(1)}%`, target: "", verdict: "" });
    }
  }
  if (r.search) {
    const q = r.search;
    const s = `3 search, HTTP, ${q.queries} queries${load("search")}`;
    rows.push({ section: s, metric: "sequential, FIRST pass (empty result cache)", value: latencyValue(q.sequentialFirst), target: "p50 ≤ 5 ms, p99 ≤ 30 ms", verdict: check(q.sequentialFirst.p50 <= 5 && q.sequentialFirst.p99 <= 30 && q.sequentialFirst.errors === 0) });
    rows.push({ section: s, metric: "sequential, repeated pass (cached heads)", value: latencyValue(q.sequentialRepeat), target: "", verdict: "" });
    rows.push({ section: s, metric: `concurrency ${q.concurrency}, FIRST pass (restarted server)`, value: latencyValue(q.concurrentFirst), target: "p99 ≤ 60 ms", verdict: check(q.concurrentFirst.p99 <= 60 && q.concurrentFirst.errors === 0) });
    rows.push({ section: s, metric: `concurrency ${q.concurrency}, repeated pass`, value: latencyValue(q.concurrentRepeat), target: "", verdict: "" });
  }
  if (r.recall) {
    const c = r.recall;
    const s = `4 quality${load("recall")}`;
    rows.push({ section: s, metric: `known-item recall@10, ${c.items} items, words unquoted`, value: `${c.recallAt10.toFixed(3)} (recall@1 ${c.recallAt1.toFixed(3)}; ${c.skipped} sampled transcripts had no unique 2-4 word run)`, target: "≥ 0.95", verdict: check(c.recallAt10 >= 0.95) });
    rows.push({ section: s, metric: "same items as a quoted phrase", value: c.phraseRecallAt10.toFixed(3), target: "", verdict: "" });
  }
  if (r.serving) {
    const s = `5 serving, autocannon${load("serving")}`;
    for (const row of r.serving) {
      rows.push({
        section: s,
        metric: row.name,
        value: `${num(row.server.requestsPerSecond)} req/s (${row.server.megabytesPerSecond.toFixed(0)} MiB/s, p99 ${row.server.p99Ms} ms${row.server.non2xx ? `, ${row.server.non2xx} non-2xx` : ""}) vs bare node:http ${num(row.bare.requestsPerSecond)} req/s = ${(row.ratio * 100).toFixed(0)}%`,
        target: "≥ 70% of bare",
        verdict: check(row.ratio >= 0.7 && row.server.non2xx === 0),
      });
    }
  }
  if (r.peers) {
    const p = r.peers;
    const s = `6 peers, in-process, same ${p.common} queries${load("peers")}`;
    for (const run of p.runs) {
      const extra = run.buildSeconds !== undefined ? `; built in ${run.buildSeconds.toFixed(0)} s, +${num(run.memoryMiB ?? 0)} MiB RSS` : "";
      rows.push({ section: s, metric: `${run.name} — ${run.holds}`, value: `${latencyValue(run.summary)}, ${run.meanResults.toFixed(1)} results/query${extra}`, target: "", verdict: "" });
    }
    for (const ratio of p.ratios) {
      const fts = ratio.name.includes("FTS5");
      rows.push({
        section: s,
        metric: `p99 ratio ${ratio.name} ÷ ours`,
        value: `${ratio.p99Ratio.toFixed(1)}× (${ms(ratio.peerP99)} vs ${ms(ratio.ourP99)}); p50 ${ratio.p50Ratio.toFixed(1)}×`,
        target: fts ? "≥ 10×" : "> 1×",
        verdict: check(fts ? ratio.p99Ratio >= 10 : ratio.p99Ratio > 1),
      });
    }
  }
  return rows;
}

export function textTable(rows: readonly Row[]): string {
  const widths = [0, 0, 0, 0];
  const cells = rows.map((r) => [`${r.section} | ${r.metric}`, r.value, r.target, r.verdict]);
  for (const c of cells) c.forEach((v, i) => (widths[i] = Math.max(widths[i]!, v.length)));
  return cells.map((c) => c.map((v, i) => v.padEnd(Math.min(widths[i]!, i === 1 ? 120 : 90))).join("  ").trimEnd()).join("\n");
}

export function markdownSection(r: BenchResults, rows: readonly Row[]): string {
  const m = r.machine;
  const escape = (v: string) => v.replace(/\|/g, "\\|");
  const notes: string[] = [];
  if (r.search) {
    notes.push("", "First sequential search pass by query kind (p50 / p99 ms):", "");
    notes.push(Object.entries(r.search.byKind ?? {}).map(([k, v]) => `${k} ${v.p50.toFixed(1)} / ${v.p99.toFixed(1)} (n=${v.n})`).join("; "));
    notes.push("", "Slowest queries of that pass: " + (r.search.slowest ?? []).map((q) => `\`${q.q}\` (${q.kind}${q.offset ? `, offset ${q.offset}` : ""}) ${q.ms} ms`).join("; "));
  }
  if (r.recall && r.recall.examples.length > 0) {
    notes.push("", "Known-item misses (first few): " + r.recall.examples.map((e) => `\`${e.words}\` → ${e.videoId} (at ${(e.position * 100).toFixed(0)}% of its transcript, ${e.total} matches)`).join("; "));
  }
  const lines = [
    sectionHeading(r),
    "",
    `- date: ${r.finishedAt ?? r.startedAt} (started ${r.startedAt})`,
    `- machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; shared with other engineers' jobs, 1-min load average at each phase start: ${Object.entries(r.load).map(([k, v]) => `${k} ${v}`).join(", ")}`,
    `- commit: ${m.commit}`,
    `- command: \`${r.command}\``,
    "",
    "| Section | Metric | Value | Target | |",
    "|---|---|---|---|---|",
    ...rows.map((row) => `| ${escape(row.section)} | ${escape(row.metric)} | ${escape(row.value)} | ${escape(row.target)} | ${row.verdict} |`),
    ...notes,
    "",
  ];
  return lines.join("\n");
}

export const REPORT_HEADER = `# Benchmarks

Produced by \`npm run bench\` (scripts/bench.ts). Each corpus size has its own
section; a new run of a size replaces its section. Every figure comes from
the command shown with it. The machine is shared: other engineers' test
suites run beside the bench, so compare figures within one section (they were
measured side by side) and read absolute times against the load averages.

What the rows measure:

- **1 corpus+artifacts**: the synthetic corpus (seeded, \`pipeline/corpus\`) as JSONL, then the
  pipeline's own build and publish stages. "records/s" counts parsed, validated and staged records.
- **2 server**: \`server/main.ts\` as a child process (rate limit raised, access log off);
  start = spawn until the first 200 from /healthz (the catalog is open by then); RSS from /proc.
  Mixed load: 4 clients, 60% search, 25% transcript, 5% bulk, 5% channel listing, 5% stats.
- **3 search**: a fixed, seeded set of queries derived from the corpus (1-4 words; frequent, mid,
  rare and stop words; word runs sampled from transcripts; 1/8 with a channel filter, 1/8 with
  minViews, 1/8 with offsets 100-990), 10 results each, timed from request to last body byte over
  keep-alive connections. FIRST pass = a freshly started server (empty result cache; the OS page
  cache is warm from earlier phases); repeated pass = the same set again (cached ranked heads).
- **4 quality**: known items = sampled transcripts and a run of 2-4 consecutive words of each that
  occurs as a phrase in no other transcript (FTS5 phrase query), sent unquoted; hit = in the top 10.
- **5 serving**: autocannon, 64 connections, real server and a bare node:http process serving the
  recorded bytes of the same requests, alternated twice; mean req/s.
- **6 peers**: in-process on the same artifact database and queries, 10 results each: the
  server's catalog (fresh, empty cache), plain FTS5 (\`ORDER BY rank\` + \`snippet()\`; minViews as a
  rowid bound, which favours it), and FlexSearch holding the most-viewed transcripts it can hold in
  memory (stop words filtered; snippets by the server's snippet code; filters applied after the search).

`;

/** One section per size and path (the direct build and the full pipeline give different artifact sets). */
export function sectionHeading(r: BenchResults): string {
  const mode = r.build?.mode === "pipeline" ? "full pipeline" : r.build?.mode === "direct" ? "direct build" : "artifact set reused";
  return `## ${r.size.toLocaleString("en-US")} videos, ${mode}`;
}

export async function writeReport(path: string, r: BenchResults, rows: readonly Row[]): Promise<void> {
  const section = markdownSection(r, rows);
  let text = existsSync(path) ? readFileSync(path, "utf8") : REPORT_HEADER;
  if (!text.startsWith("# Benchmarks")) text = REPORT_HEADER + text;
  const heading = sectionHeading(r);
  const parts = text.split(/(?=^## )/m);
  const index = parts.findIndex((p) => p.startsWith(heading + "\n"));
  if (index >= 0) parts[index] = section;
  else parts.push(section);
  // Sections in ascending size after the header.
  const [head, ...sections] = parts;
  const size = (p: string) => Number(/^## ([\d,]+)/.exec(p)?.[1]?.replace(/,/g, "") ?? 0);
  sections.sort((a, b) => size(a) - size(b));
  await writeFile(path, [head, ...sections].map((p) => p!.trimEnd() + "\n").join("\n"));
}
