/**
 * `npm run pipeline -- run --channels F` as an operator runs it: one channel
 * from the stand-in with YouTube's limits on, through three loopback exit
 * proxies and one that is down (YOUTUBE_PROXY_URLS, YOUTUBE_EXIT_*). It ends
 * with exit 0 and every transcript stored.
 */
import { spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startExitProxies, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { stateRows, tempDataDir } from "../pipeline/helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";

const VIDEOS = 24;
let world: SyntheticStandin;
let exits: ExitProxy[];
let data: ReturnType<typeof tempDataDir>;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: VIDEOS, channels: 1, seed: 5 });
  world.standin.setLimits({ budget: 8, windowMs: 2_000, coolDownMs: 2_000, answer: "by-endpoint" });
  exits = await startExitProxies(3, 20);
  data = tempDataDir();
});
afterAll(async () => {
  await Promise.all((exits ?? []).map((e) => e.close()));
  await world?.close();
  data?.cleanup();
});

async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

it("fetches one channel through 3 proxies and a dead one, stores every transcript and exits 0", async () => {
  const list = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
  const proxies = [...exits.map((e) => e.url), await closedPort()];
  const child = spawn(process.execPath, ["--import", "tsx", "pipeline/cli.ts", "run", "--channels", list, "--origin", world.standin.origin], {
    cwd: join(import.meta.dirname, "..", ".."),
    env: {
      ...process.env,
      DATA_DIR: data.dir,
      YOUTUBE_PROXY_URLS: proxies.join(","),
      // Under the stand-in's 8 per 2 s, one request at a time per exit; cool-downs as long as the stand-in's.
      YOUTUBE_EXIT_RATE: "200",
      YOUTUBE_EXIT_IN_FLIGHT: "1",
      YOUTUBE_EXIT_COOL_DOWN_SECONDS: "2",
      YOUTUBE_EXIT_COOL_DOWN_MAX_SECONDS: "4",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });

  const captioned = Array.from({ length: VIDEOS }, (_, i) => world.corpus.videoAt(i)).filter((v) => v.transcripts.length > 0);
  const stored = stateRows<{ video_id: string }>(data.dir, "SELECT video_id FROM videos WHERE status = 'fetched'").map((r) => r.video_id);
  expect(stored.sort()).toEqual(captioned.map((v) => v.videoId).sort());
  expect(stdout).toMatch(new RegExp(`transcripts: ${captioned.length} fetched of ${VIDEOS} wanted`));
  expect(stdout).toContain("failed (next run retries): none");
  expect(stdout).toMatch(new RegExp(`published: .*\\(${captioned.length} videos, ${captioned.length} transcripts`));
  expect(stdout).toMatch(/exits: {7}4: \d+ requests, \d+ blocked, 3 failed/);
  expect(stdout).toMatch(/proxy 4 \(127\.0\.0\.1:\d+\): 3 requests, 0 blocked, 3 failed, out/);
  // The three live exits each came from their own address, and none was sent a request within a Retry-After.
  const report = world.standin.limitsReport();
  expect(Object.keys(report.addresses).sort()).toEqual(exits.map((e) => e.localAddress).sort());
  expect(report.totals.duringAnnouncedCoolDown).toBe(0);
}, 120_000);
