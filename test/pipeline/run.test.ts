import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { parseChannelList } from "../../pipeline/crawl/read-channel-list.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { makeVideo } from "../helpers/records.js";
import { createYouTubeClient, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { bufferedProgress, run, stateRows, tempDataDir } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

// 150 videos over 4 Zipf-sized channels: the biggest has ~70 videos, three browse pages.
let world: SyntheticStandin;
let data: ReturnType<typeof tempDataDir>;
let channels: string;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 150, channels: 4 });
});
afterAll(() => world.close());
beforeEach(() => {
  world.standin.setFault(null);
  world.standin.stats.reset();
});

const noTranscriptIds = (): string[] =>
  Array.from({ length: world.corpus.videoCount }, (_, i) => world.corpus.videoAt(i))
    .filter((v) => v.transcripts.length === 0)
    .map((v) => v.videoId);

describe("a full run against the stand-in", () => {
  beforeAll(() => {
    data = tempDataDir();
    channels = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
  });
  afterAll(() => data.cleanup());

  it("crawls a list of ids, handles and URLs through continuation pages, fetches every transcript and publishes a servable set", async () => {
    const text = readFileSync(channels, "utf8");
    expect(text).toMatch(/^UC/m);
    expect(text).toMatch(/^@/m);
    expect(text).toMatch(/^https:\/\/www\.youtube\.com\/@/m);

    const summary = await run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin, concurrency: 4 });

    expect(summary.exitCode).toBe(EXIT.ok);
    expect(summary.channels).toMatchObject({ listed: 4, crawled: 4, failed: [] });
    expect(summary.videos).toEqual({ seen: 150, new: 150 });
    expect(world.standin.stats.byEndpoint.resolve_url).toBe(2); // the handle and the URL
    expect(world.standin.stats.byEndpoint.browse).toBeGreaterThanOrEqual(4 + 3); // first pages + continuations
    const biggest = world.corpus.channels[0]!;
    expect(biggest.videoCount).toBeGreaterThan(60);
    const missing = noTranscriptIds();
    expect(summary.transcripts.fetched).toBe(150 - missing.length);
    expect(summary.transcripts.permanent).toEqual(missing.length ? { transcripts_disabled: missing.length } : {});
    // Each video's caption track requested exactly once.
    for (let i = 0; i < 150; i++) {
      const id = world.corpus.videoIdAt(i);
      expect(world.standin.stats.byVideo[id]?.timedtext ?? 0).toBe(missing.includes(id) ? 0 : 1);
    }

    const manifest = readManifest(dataDirLayout(data.dir).current);
    expect(manifest.dataset).toBe("pipeline");
    expect(manifest.counts).toMatchObject({ channels: 4, videos: 150 - missing.length, transcripts: 150 - missing.length });
    const catalog = openCatalog({ dir: dataDirLayout(data.dir).current });
    try {
      const sample = world.corpus.videoAt(world.corpus.indexOfVideoId(biggest.channelId) ?? 5);
      const record = sample.transcripts.length ? sample : world.corpus.videoAt(6);
      const words = record.transcripts[0]!.segments[0]!.text.split(" ").slice(0, 3).join(" ");
      const found = catalog.search({ q: `"${words}"`, limit: 50, offset: 0 });
      expect(found.results.map((r) => r.videoId)).toContain(record.videoId);
      const lookup = catalog.getTranscript(record.videoId, record.transcripts[0]!.languageCode);
      expect(lookup.kind).toBe("found");
      expect(catalog.channelVideos(biggest.channelId, 100, 0)?.total).toBe(biggest.videoCount - missing.filter((id) => world.corpus.video(id)?.channelId === biggest.channelId).length);
    } finally {
      catalog.close();
    }

    // The summary is also on disk, and the state knows every video with its status.
    const written = JSON.parse(readFileSync(join(data.dir, "pipeline", "last-run.json"), "utf8"));
    expect(written).toMatchObject({ outcome: "ok", exitCode: 0, videos: { seen: 150, new: 150 } });
    const statuses = stateRows<{ status: string; n: number }>(data.dir, "SELECT status, count(*) AS n FROM videos GROUP BY status ORDER BY status");
    expect(statuses).toEqual([
      ...(missing.length ? [{ status: "failed", n: missing.length }] : []),
      { status: "fetched", n: 150 - missing.length },
    ]);
  });

  it("records permanent failures with reason and time, and does not retry them before the configured age", async () => {
    const missing = noTranscriptIds();
    expect(missing.length).toBeGreaterThan(0);
    const rows = stateRows<{ status: string; last_error: string; last_attempt_at: string }>(
      data.dir,
      `SELECT status, last_error, last_attempt_at FROM videos WHERE video_id IN (${missing.map(() => "?").join(",")})`,
      ...missing,
    );
    for (const row of rows) {
      expect(row).toMatchObject({ status: "failed", last_error: "transcripts_disabled" });
      expect(Date.parse(row.last_attempt_at)).toBeGreaterThan(Date.now() - 120_000);
    }

    const again = await run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin, recrawlAfterMs: 0, build: false });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(again.videos).toEqual({ seen: 150, new: 0 });
    expect(again.transcripts).toMatchObject({ wanted: 0, attempted: 0, fetched: 0 });
    for (const id of missing) expect(world.standin.stats.byVideo[id]).toBeUndefined();
    expect(world.standin.stats.byEndpoint.watch).toBe(0);

    // Old enough (age 0): asked again, recorded again.
    world.standin.stats.reset();
    const retried = await run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin, retryPermanentAfterMs: 0, build: false });
    expect(retried.transcripts).toMatchObject({ attempted: missing.length, permanent: { transcripts_disabled: missing.length } });
    for (const id of missing) expect(world.standin.stats.byVideo[id]?.player).toBe(1);
  });

  it("folds the transcripts the server fetched live into the next build and records the watermark as liveSeq", async () => {
    const live = LiveStore.open(join(data.dir, "live.db"));
    const placement = { videoInArtifacts: false, artifactHasTranscript: false, channelInArtifacts: false };
    live.put(makeVideo(901, { text: "a live fetched lecture about lighthouse keepers" }), placement);
    live.put(makeVideo(902, { text: "another live one about tidal pools" }), placement);
    const maxSeq = live.maxSeq();
    live.close();

    const summary = await run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin });
    expect(summary.exitCode).toBe(EXIT.ok);
    expect(summary.build).toMatchObject({ liveSeq: maxSeq, liveRecords: 2 });
    const manifest = readManifest(dataDirLayout(data.dir).current);
    expect(manifest.liveSeq).toBe(maxSeq);
    const catalog = openCatalog({ dir: dataDirLayout(data.dir).current });
    try {
      expect(catalog.search({ q: "lighthouse keepers", limit: 5, offset: 0 }).results.map((r) => r.videoId)).toEqual([makeVideo(901).videoId]);
      expect(catalog.getTranscript(makeVideo(902).videoId, "en").kind).toBe("found");
    } finally {
      catalog.close();
    }
  });

  it("changes nothing with --dry-run, and reports what a run would fetch", async () => {
    const stateFile = join(data.dir, "pipeline", "state.db");
    const before = { state: statSync(stateFile).mtimeMs, summary: readFileSync(join(data.dir, "pipeline", "last-run.json"), "utf8"), builds: readdirSync(join(data.dir, "builds")) };
    const summary = await run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin, dryRun: true, retryPermanentAfterMs: 0 });
    expect(summary).toMatchObject({ outcome: "dry-run", exitCode: EXIT.ok, dryRun: true, build: null });
    expect(summary.transcripts.wanted).toBe(noTranscriptIds().length);
    expect(world.standin.stats.byEndpoint.watch + world.standin.stats.byEndpoint.player + world.standin.stats.byEndpoint.timedtext).toBe(0);
    expect(statSync(stateFile).mtimeMs).toBe(before.state);
    expect(readFileSync(join(data.dir, "pipeline", "last-run.json"), "utf8")).toBe(before.summary);
    expect(readdirSync(join(data.dir, "builds"))).toEqual(before.builds);
    expect(existsSync(join(data.dir, "pipeline", "run.lock"))).toBe(false);
  });

  it("changes nothing with --dry-run on a DATA_DIR that has no state yet", async () => {
    const fresh = tempDataDir();
    try {
      const summary = await run({ dataDir: fresh.dir, channelsFile: channels, origin: world.standin.origin, dryRun: true });
      expect(summary.transcripts.wanted).toBe(150);
      expect(readdirSync(fresh.dir)).toEqual([]);
    } finally {
      fresh.cleanup();
    }
  });
});

describe("the crawl and the fetch side by side", () => {
  /** The real client, with the second channel's crawl held until a transcript has been fetched (or 5 s have passed). */
  function gatedClient(heldChannel: string) {
    const client = createYouTubeClient({ origin: world.standin.origin, timeoutMs: 5000 });
    let fetchedOne!: () => void;
    const firstFetch = new Promise<void>((resolve) => (fetchedOne = resolve));
    const gate = { released: "" as "" | "by a fetch" | "by the timeout" };
    const gated: YouTubeClient = {
      ...client,
      origin: client.origin,
      fetchTranscript: async (videoId, options) => {
        try {
          return await client.fetchTranscript(videoId, options);
        } finally {
          fetchedOne();
        }
      },
      channelFeed: async (channelId, options) => {
        if (channelId === heldChannel) {
          gate.released = await Promise.race([
            firstFetch.then(() => "by a fetch" as const),
            new Promise<"by the timeout">((resolve) => setTimeout(() => resolve("by the timeout"), 5000)),
          ]);
        }
        return client.channelFeed(channelId, options);
      },
    };
    return { client: gated, gate };
  }

  it("fetches transcripts of the channels crawled so far while the crawl goes on", async () => {
    const fresh = tempDataDir();
    try {
      const [first, second] = [world.corpus.channels[2]!, world.corpus.channels[3]!];
      const list = join(fresh.dir, "two.txt");
      writeFileSync(list, `${first.channelId}\n${second.channelId}\n`);
      const { client, gate } = gatedClient(second.channelId);
      const output = bufferedProgress();
      // Concurrency 1: one channel crawled at a time, so the second waits behind its gate.
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, client, concurrency: 1, build: false, progress: output.progress });
      await client.close();
      expect(gate.released).toBe("by a fetch");
      const missing = noTranscriptIds().filter((id) => [first.channelId, second.channelId].includes(world.corpus.video(id)!.channelId));
      const total = first.videoCount + second.videoCount;
      expect(summary).toMatchObject({ exitCode: EXIT.ok, channels: { crawled: 2 }, videos: { seen: total, new: total } });
      expect(summary.transcripts).toMatchObject({ wanted: total, attempted: total, fetched: total - missing.length });
      expect(output.text()).toMatch(new RegExp(`crawl: 2 channels crawled, 0 skipped, 0 failed; ${total} videos seen, ${total} new`));
      expect(stateRows<{ n: number }>(fresh.dir, "SELECT count(*) AS n FROM videos WHERE status = 'pending'")).toEqual([{ n: 0 }]);
    } finally {
      fresh.cleanup();
    }
  });

  it("runs more calls at once than Node's default listener limit without a listener warning", async () => {
    const fresh = tempDataDir();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    try {
      // 16 fetches and 4 crawls in flight, each listening on the run's abort signal.
      const list = writeChannelList(join(fresh.dir, "channels.txt"), world.corpus);
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, origin: world.standin.origin, concurrency: 16, build: false });
      expect(summary.exitCode).toBe(EXIT.ok);
      expect(summary.transcripts.fetched).toBe(150 - noTranscriptIds().length);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      fresh.cleanup();
    }
  });

  it("stops the fetch and fails the run when the crawl fails for a reason that is not YouTube's", async () => {
    const fresh = tempDataDir();
    try {
      const list = join(fresh.dir, "two.txt");
      writeFileSync(list, `${world.corpus.channels[2]!.channelId}\n${world.corpus.channels[3]!.channelId}\n`);
      const { client } = gatedClient("none");
      let fetchesStarted = 0;
      const broken: YouTubeClient = {
        ...client,
        fetchTranscript: (videoId, options) => {
          fetchesStarted++;
          return client.fetchTranscript(videoId, options);
        },
        channelFeed: async (channelId, options) => {
          if (channelId === world.corpus.channels[3]!.channelId) throw new TypeError("a bug in the crawl");
          return client.channelFeed(channelId, options);
        },
      };
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, client: broken, concurrency: 1, build: false });
      await client.close();
      expect(summary).toMatchObject({ outcome: "failed", exitCode: EXIT.failed, error: "a bug in the crawl" });
      // The fetch stopped with the crawl: it did not go on through the first channel's videos.
      expect(fetchesStarted).toBeLessThan(world.corpus.channels[2]!.videoCount);
      expect(existsSync(join(fresh.dir, "pipeline", "run.lock"))).toBe(false);
    } finally {
      fresh.cleanup();
    }
  });
});

describe("the run lock", () => {
  it("takes over a lock left by a process that is no longer alive", async () => {
    const fresh = tempDataDir();
    try {
      const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
      const { mkdirSync } = await import("node:fs");
      mkdirSync(join(fresh.dir, "pipeline"));
      const { hostname } = await import("node:os");
      writeFileSync(join(fresh.dir, "pipeline", "run.lock"), JSON.stringify({ pid: dead, hostname: hostname(), startedAt: "2026-01-01T00:00:00Z" }));
      const list = join(fresh.dir, "one.txt");
      writeFileSync(list, `${world.corpus.channels[3]!.channelId}\n`);
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, origin: world.standin.origin, build: false, limit: 2 });
      expect(summary).toMatchObject({ exitCode: EXIT.ok, tookOverLockOf: dead });
      expect(existsSync(join(fresh.dir, "pipeline", "run.lock"))).toBe(false);
    } finally {
      fresh.cleanup();
    }
  });
});

describe("failures", () => {
  it("retries transient failures with backoff, then leaves them for the next run and exits 4", async () => {
    const fresh = tempDataDir();
    try {
      const list = join(fresh.dir, "one.txt");
      writeFileSync(list, `${world.corpus.channels[3]!.channelId}\n`);
      world.standin.setFault({ kind: "server-error", endpoint: "timedtext", status: 503 });
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, origin: world.standin.origin, build: false, limit: 3, retries: 2 });
      expect(summary.exitCode).toBe(EXIT.partial);
      expect(summary.transcripts.failed).toEqual({ upstream_status: 3 });
      expect(world.standin.stats.byEndpoint.timedtext).toBe(9); // 3 videos × (1 + 2 retries)
      const rows = stateRows<{ status: string; last_error: string; attempts: number }>(fresh.dir, "SELECT status, last_error, attempts FROM videos WHERE attempts > 0");
      expect(rows).toEqual(Array(3).fill({ status: "pending", last_error: "upstream_status", attempts: 1 }));

      world.standin.setFault(null);
      const next = await run({ dataDir: fresh.dir, channelsFile: list, origin: world.standin.origin, build: false, limit: 3 });
      expect(next).toMatchObject({ exitCode: EXIT.ok, transcripts: { fetched: 3 - (next.transcripts.permanent.transcripts_disabled ?? 0) } });
    } finally {
      fresh.cleanup();
    }
  });

  it("reports a channel that cannot be resolved and still runs the others", async () => {
    const fresh = tempDataDir();
    try {
      const list = join(fresh.dir, "two.txt");
      writeFileSync(list, `@nobodyhere\n${world.corpus.channels[3]!.channelId}\n`);
      const summary = await run({ dataDir: fresh.dir, channelsFile: list, origin: world.standin.origin, build: false, limit: 1 });
      expect(summary.exitCode).toBe(EXIT.partial);
      expect(summary.channels.failed).toEqual([expect.objectContaining({ input: "@nobodyhere", code: "channel_not_found" })]);
      expect(summary.channels.crawled).toBe(1);
    } finally {
      fresh.cleanup();
    }
  });
});

describe("the channel list", () => {
  it("accepts ids, handles and URLs with comments, and drops duplicates", () => {
    const entries = parseChannelList(
      "# list\n\nUCaaaaaaaaaaaaaaaaaaaaaa  # an id\n@kitchen\nhttps://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa\nyoutube.com/@Other/videos\n",
    );
    expect(entries).toEqual([
      { input: "UCaaaaaaaaaaaaaaaaaaaaaa", line: 3, channelId: "UCaaaaaaaaaaaaaaaaaaaaaa" },
      { input: "@kitchen", line: 4 },
      { input: "youtube.com/@Other/videos", line: 6 },
    ]);
  });

  it("names every bad line by number without echoing it", () => {
    expect(() => parseChannelList("@ok\nnot a channel\nhttps://example.com/@x\n", "list.txt")).toThrow(
      "list.txt:2: not a channel id (UC…), @handle, channel URL or playlist (PL…, a URL with list=)\nlist.txt:3: not a channel id (UC…), @handle, channel URL or playlist (PL…, a URL with list=)",
    );
  });
});
