/**
 * What GET /metrics exposes, in the Prometheus text format (prom-client):
 * requests by route template and status, request latency by route, live
 * fetches by outcome, upstream errors by kind, rate-limited requests, the
 * served artifact set as an info gauge, the live fetcher's requests, blocks
 * and failures per YouTube exit with each exit's state (read from the shared
 * exit store at each scrape, so an exit the pipeline found blocked shows as
 * cooling here too), and prom-client's process defaults.
 * Each app has its own registry, so servers in one process (tests) never
 * share or double-register metrics.
 */
import { basename } from "node:path";
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from "prom-client";
import type { LiveFetchEvent } from "../live/transcript-source.js";
import type { ExitPoolSnapshot } from "../../pipeline/youtube/index.js";

/** The exits /metrics reads: the live fetcher's pool. */
export interface ExitsToMeasure {
  /** Reads the exits' state from their store again (other processes' blocks included). */
  refresh(): Promise<void>;
  snapshot(): ExitPoolSnapshot;
}

/** The states of `transcript_exit_state`: one series each, 1 for the exit's current one. */
const EXIT_STATES = ["ok", "cooling", "dead"] as const;

/** What the metrics gauge reads of the served set. */
export interface ServedSet {
  manifest?: { builtAt?: string; dataset?: string; schemaVersion?: number };
  dir?: string;
}

export interface Metrics {
  readonly registry: Registry;
  /** One finished (or abandoned) request: `route` is the route's template, never the raw path. */
  request(route: string, method: string, status: string, seconds: number): void;
  rateLimited(): void;
  liveFetch(event: LiveFetchEvent): void;
  /** The exposition text and its content type. */
  render(): Promise<{ text: string; contentType: string }>;
}

/** Seconds; fine at the low end, where searches and stored transcripts answer. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(servedSet: () => ServedSet | undefined, exits?: ExitsToMeasure): Metrics {
  const registry = new Registry();
  // prom-client's process metrics start their monitors (event-loop delay, GC) when registered:
  // registered at the first scrape, so an app that is never scraped (most tests) starts none.
  let defaultsRegistered = false;
  const tally = new RequestTally();
  new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by route template, method and status (aborted: the client left before the answer).",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
    collect() {
      for (const { labels, count } of tally.takeCounts()) this.inc(labels, count);
    },
  });
  registry.registerMetric(
    new TalliedHistogram("http_request_duration_seconds", "Time from a request's arrival to its answer, by route template.", tally) as unknown as Metric,
  );
  const liveFetches = new Counter({
    name: "transcript_live_fetches_total",
    help: "Live fetches of transcripts not stored, by outcome (stored, upstream_error, negative_cache, joined, busy, deadline, withdrawn).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: "transcript_upstream_errors_total",
    help: "Live fetches YouTube answered without a transcript or failed, by kind (the error code).",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: "transcript_rate_limited_requests_total",
    help: "Requests refused with 429 by the per-key rate limit.",
    registers: [registry],
  });
  new Gauge({
    name: "transcript_artifact_set_info",
    help: "The artifact set being served (value 1): its build id (the directory under builds/), dataset, build time and schema version.",
    labelNames: ["build_id", "dataset", "built_at", "schema_version"] as const,
    registers: [registry],
    collect() {
      this.reset();
      const set = servedSet();
      if (set?.manifest === undefined) return;
      this.set(
        {
          build_id: set.dir === undefined ? "" : basename(set.dir),
          dataset: set.manifest.dataset ?? "",
          built_at: set.manifest.builtAt ?? "",
          schema_version: String(set.manifest.schemaVersion ?? ""),
        },
        1,
      );
    },
  });
  // Zero from the start, so a rate() over the first scrapes is defined.
  rateLimited.inc(0);
  if (exits) registerExitMetrics(registry, exits);

  return {
    registry,
    request: (route, method, status, seconds) => tally.request(route, method, status, seconds),
    rateLimited: () => rateLimited.inc(),
    liveFetch(event) {
      liveFetches.inc({ outcome: event.outcome });
      if (event.outcome === "upstream_error") upstreamErrors.inc({ kind: event.kind ?? "unknown" });
    },
    async render() {
      if (!defaultsRegistered) {
        defaultsRegistered = true;
        collectDefaultMetrics({ register: registry });
      }
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

/**
 * Per exit (labelled by its key: the proxy URL without credentials, or `direct:<host>`): this process's requests,
 * blocked answers and failures through it, set from the pool's own counts at each scrape, and its state as the shared store says.
 */
function registerExitMetrics(registry: Registry, exits: ExitsToMeasure): void {
  /** Read once per scrape, by the first metric collected; the others use it. */
  let reading: Promise<ExitPoolSnapshot> | undefined;
  const current = async (): Promise<ExitPoolSnapshot> => {
    reading ??= exits
      .refresh()
      .catch(() => undefined) // the store unreadable: the state as this process last saw it
      .then(() => exits.snapshot())
      .finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
  const counter = (name: string, help: string, key: "sent" | "blocked" | "failed"): void => {
    new Counter({
      name,
      help,
      labelNames: ["exit"] as const,
      registers: [registry],
      async collect() {
        const snapshot = await current();
        this.reset();
        for (const exit of snapshot.exits) this.inc({ exit: exit.key }, exit[key]);
      },
    });
  };
  counter("transcript_exit_requests_total", "Requests the live fetch sent to YouTube through each exit (proxy URL without credentials, or direct:<host>).", "sent");
  counter("transcript_exit_blocked_total", "Answers through each exit that were YouTube's blocks (429, unusual traffic, bot check, captcha, consent wall, empty caption body).", "blocked");
  counter("transcript_exit_failures_total", "Requests through each exit that got no answer (connection refused or cut, timeout).", "failed");
  new Gauge({
    name: "transcript_exit_state",
    help: "Each exit's state as the exits' shared state says (1 for the current one): ok, cooling (resting after a block), dead (out after failures, probed later).",
    labelNames: ["exit", "state"] as const,
    registers: [registry],
    async collect() {
      const snapshot = await current();
      this.reset();
      for (const exit of snapshot.exits) {
        const state = exit.condition === "cooling" || exit.condition === "dead" ? exit.condition : "ok";
        for (const each of EXIT_STATES) this.set({ exit: exit.key, state: each }, each === state ? 1 : 0);
      }
    },
  });
}

/**
 * Requests counted and timed in plain maps, handed to prom-client at each
 * scrape: prom-client checks and hashes the labels of every inc and observe,
 * which costs a stored transcript's answer more than the rest of its
 * bookkeeping. The exposition is the same.
 */
class RequestTally {
  /** Requests since the last scrape, by route, method and status. */
  readonly #counts = new Map<string, { labels: { route: string; method: string; status: string }; count: number }>();
  /** Latency by route since the start: per bucket of LATENCY_BUCKETS (and +Inf last), the sum and the count. */
  readonly latency = new Map<string, { buckets: Float64Array; sum: number; count: number }>();

  request(route: string, method: string, status: string, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    const counted = this.#counts.get(key);
    if (counted === undefined) this.#counts.set(key, { labels: { route, method, status }, count: 1 });
    else counted.count++;
    let timed = this.latency.get(route);
    if (timed === undefined) {
      timed = { buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      this.latency.set(route, timed);
    }
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    timed.buckets[bucket]!++;
    timed.sum += seconds;
    timed.count++;
  }

  /** The counts since the last call, and forgets them (the counter adds them up). */
  takeCounts(): { labels: { route: string; method: string; status: string }; count: number }[] {
    const counts = [...this.#counts.values()];
    this.#counts.clear();
    return counts;
  }
}

interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

/** The latency tally as a prom-client histogram (the values prom-client's own Histogram gives its registry), by route. */
class TalliedHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";

  constructor(
    readonly name: string,
    readonly help: string,
    readonly tally: RequestTally,
  ) {}

  getForPromString(): { name: string; help: string; type: string; aggregator: string; values: HistogramValue[] } {
    const values: HistogramValue[] = [];
    for (const [route, timed] of this.tally.latency) {
      const sharedLabels = { route };
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += timed.buckets[i]!;
        values.push({ labels: { le }, sharedLabels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: "+Inf" }, sharedLabels, value: timed.count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, sharedLabels, value: timed.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels, value: timed.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  get() {
    const data = this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.tally.latency.clear();
  }
}
