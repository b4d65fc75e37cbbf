/**
 * `npm run pipeline -- run` on one host (no DATABASE_URL) against the
 * stand-in with YouTube's limits on, through three loopback exits, killed
 * with SIGKILL part way and run again: every transcript is stored and
 * published, and no video is fetched again but those whose caption was in
 * flight (downloaded, not yet stored) at the kill, counted by the stand-in
 * per video. The run is killed while every exit rests after a block; the
 * rests outlive the kill (DATA_DIR/exits.db), so no request of either run
 * reaches an address during a Retry-After it was given.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { proxyExitKey } from "../../pipeline/youtube/exits/exit-key.js";
import { SqliteExitStore } from "../../pipeline/youtube/exits/sqlite-exit-store.js";
import { startExitProxies, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { stateRows, tempDataDir } from "../pipeline/helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";
import { startChild, until } from "../reliability/helpers/child.js";

const VIDEOS = 45;
let world: SyntheticStandin;
let exits: ExitProxy[];
let data: ReturnType<typeof tempDataDir>;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: VIDEOS, channels: 1, seed: 41 });
  exits = await startExitProxies(3, 80);
  data = tempDataDir();
});
afterAll(async () => {
  await Promise.all((exits ?? []).map((e) => e.close()));
  await world?.close();
  data?.cleanup();
});

it("killed with -9 mid-run, then run again: every transcript stored and published, none fetched again but those in flight", async () => {
  const list = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
  const ids = Array.from({ length: VIDEOS }, (_, i) => world.corpus.videoIdAt(i));
  const captioned = ids.filter((id) => (world.corpus.video(id)?.transcripts.length ?? 0) > 0);
  // Limits on, generous at first; each caption answer takes a while, so the run can be killed part way.
  world.standin.setLimits({ budget: 1_000, windowMs: 2_000, coolDownMs: 10_000, answer: "rate-limit" });
  world.standin.setFault({ kind: "slow", delayMs: 150, endpoint: "timedtext" });
  const env = {
    DATA_DIR: data.dir,
    YOUTUBE_PROXY_URLS: exits.map((e) => e.url).join(","),
    // One request at a time per exit, so none is on its way when a block is answered.
    YOUTUBE_EXIT_RATE: "0",
    YOUTUBE_EXIT_IN_FLIGHT: "1",
    YOUTUBE_EXIT_COOL_DOWN_SECONDS: "10",
  };
  const args = ["run", "--channels", list, "--origin", world.standin.origin];
  const downloads = (id: string): number => world.standin.stats.byVideo[id]?.timedtext ?? 0;
  const blockedAddresses = (): number => Object.values(world.standin.limitsReport().addresses).filter((a) => a.blocked > 0).length;

  const first = startChild("pipeline/cli.ts", args, env);
  await until(() => ids.filter(downloads).length >= 15, 90_000, "the first run to fetch some captions");
  // Then YouTube pushes back: one request a minute per address; every exit is told to rest 10 s, and is killed resting.
  world.standin.setLimits({ budget: 1, windowMs: 60_000, coolDownMs: 10_000, answer: "rate-limit" });
  await until(() => blockedAddresses() === exits.length, 30_000, "every exit to be blocked");
  // Killed once the run has recorded every rest (a block answered but not yet read is gone with the process).
  const host = SqliteExitStore.open(join(data.dir, "exits.db"));
  const resting = async (): Promise<boolean> =>
    (await Promise.all(exits.map((e) => host.read(proxyExitKey(e.url))))).every((record) => record.coolingUntil > Date.now() + 3_000);
  await until(resting, 30_000, "the run to record every exit's rest");
  host.close();
  first.process.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");
  world.standin.setLimits({ budget: 1_000, windowMs: 2_000, coolDownMs: 10_000, answer: "rate-limit" });
  const stored = new Set(stateRows<{ video_id: string }>(data.dir, "SELECT video_id FROM videos WHERE status = 'fetched'").map((r) => r.video_id));
  expect(stored.size).toBeGreaterThan(0);
  expect(stored.size).toBeLessThan(captioned.length);
  world.standin.stats.reset();

  const second = startChild("pipeline/cli.ts", args, env);
  const { code } = await second.exited;
  expect({ code, stderr: code === 0 ? "" : second.stderr() }).toEqual({ code: 0, stderr: "" });
  expect(second.stdout()).toMatch(new RegExp(`published: .*\\(${captioned.length} videos, ${captioned.length} transcripts`));
  const fetched = stateRows<{ video_id: string }>(data.dir, "SELECT video_id FROM videos WHERE status = 'fetched'").map((r) => r.video_id);
  expect(fetched.sort()).toEqual([...captioned].sort());

  // The second run asked YouTube nothing about a video stored before the kill, and fetched every other captioned one:
  // a caption downloaded by both runs was in flight at the kill (downloaded, not yet stored).
  for (const id of stored) expect(world.standin.stats.byVideo[id], id).toBeUndefined();
  const again = ids.filter((id) => downloads(id) > 0);
  expect(again.sort()).toEqual(captioned.filter((id) => !stored.has(id)).sort());
  // The rests announced before the kill held for the new run too (DATA_DIR/exits.db): it waited them out.
  expect(world.standin.limitsReport().totals.duringAnnouncedCoolDown).toBe(0);
  expect(world.standin.limitsReport().totals.requests).toBeGreaterThan(0);
}, 180_000);
