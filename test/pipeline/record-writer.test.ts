/** The state writer thread: group commits, each operation on its own, every promise only after its commit. */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PipelineState, type CrawledVideo } from "../../pipeline/state/open-state.js";
import { RecordWriter } from "../../pipeline/state/record-writer.js";
import { makeVideo } from "../helpers/records.js";
import { stateRows, tempDataDir } from "./helpers/run-harness.js";

let data: ReturnType<typeof tempDataDir> | undefined;
afterEach(() => data?.cleanup());

function open(): { writer: RecordWriter; state: PipelineState; dir: string } {
  data = tempDataDir();
  const path = join(data.dir, "pipeline", "state.db");
  const state = PipelineState.open(path);
  return { writer: new RecordWriter(path), state, dir: data.dir };
}

const crawled = (n: number, channelId = "UCaaaaaaaaaaaaaaaaaaaaaa"): CrawledVideo[] =>
  Array.from({ length: n }, (_, i) => ({
    videoId: makeVideo(i).videoId,
    channelId,
    title: `video ${i}`,
    viewCount: i,
    publishedAt: "2025-01-01T00:00:00Z",
    approximate: true,
  }));

describe("the state writer", () => {
  it("commits a burst of pages, records and failures, each promise resolving with its own result", async () => {
    const { writer, state, dir } = open();
    const now = new Date("2026-01-01T00:00:00Z");
    await writer.saveChannel({ channelId: "UCaaaaaaaaaaaaaaaaaaaaaa", input: "@a" }, now);
    // A page of 60, then the same page again: the second finds every video known.
    const [first, again] = await Promise.all([writer.saveVideos(crawled(60), now), writer.saveVideos(crawled(60), now)]);
    expect([first, again]).toEqual([60, 0]);
    await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => writer.save(makeVideo(i), now)),
      ...Array.from({ length: 10 }, (_, i) => writer.saveFailure(makeVideo(50 + i).videoId, { permanent: true, code: "transcripts_disabled", message: "none" }, now)),
      writer.saveChannelCrawled("UCaaaaaaaaaaaaaaaaaaaaaa", 60, now),
    ]);
    await writer.close();
    state.close();
    expect(stateRows(dir, "SELECT status, count(*) AS n FROM videos GROUP BY status ORDER BY status")).toEqual([
      { status: "failed", n: 10 },
      { status: "fetched", n: 50 },
    ]);
    expect(stateRows(dir, "SELECT count(*) AS n FROM records")).toEqual([{ n: 50 }]);
    expect(stateRows(dir, "SELECT video_count, crawled_at FROM channels")).toEqual([{ video_count: 60, crawled_at: now.toISOString() }]);
  });

  it("fails only the operation that fails when it shares a commit with others", async () => {
    const { writer, state, dir } = open();
    const now = new Date("2026-01-01T00:00:00Z");
    await writer.saveVideos(crawled(5), now);
    const broken = crawled(1).map((video) => ({ ...video, videoId: makeVideo(99).videoId, title: null as unknown as string }));
    const outcomes = await Promise.allSettled([
      writer.save(makeVideo(0), now),
      writer.saveVideos(broken, now), // title is NOT NULL
      writer.save(makeVideo(1), now),
      writer.saveVideos(crawled(7), now),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toMatch(/NOT NULL/);
    expect((outcomes[3] as PromiseFulfilledResult<number>).value).toBe(2);
    await writer.close();
    state.close();
    expect(stateRows(dir, "SELECT count(*) AS n FROM records")).toEqual([{ n: 2 }]);
    expect(stateRows(dir, "SELECT count(*) AS n FROM videos")).toEqual([{ n: 7 }]);
  });
  it("closes only after records still being compressed are committed, and stores each record whole", async () => {
    const { writer, state, dir } = open();
    const now = new Date("2026-01-01T00:00:00Z");
    await writer.saveVideos(crawled(20), now);
    // Saves not awaited: close() is called while their compression is still on the thread pool.
    const saves = Array.from({ length: 20 }, (_, i) => writer.save(makeVideo(i), now));
    await writer.close();
    await Promise.all(saves);
    expect(stateRows(dir, "SELECT count(*) AS n FROM records")).toEqual([{ n: 20 }]);
    const stored = [...state.records()];
    expect(stored.map((record) => record.videoId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => makeVideo(i).videoId).sort());
    expect(stored.find((record) => record.videoId === makeVideo(3).videoId)).toEqual(makeVideo(3));
    state.close();
  });
});
