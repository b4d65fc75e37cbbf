/**
 * The CLI as a scheduler sees it: a child process, killed with SIGKILL in
 * the middle of fetching and started again; a second run while the first
 * holds the lock; usage errors. Every request is counted at the stand-in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { stateRows, tempDataDir } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

let world: SyntheticStandin;
let data: ReturnType<typeof tempDataDir>;
let list: string;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 120, channels: 3 });
  data = tempDataDir();
  list = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
});
afterAll(async () => {
  await world.close();
  data.cleanup();
});

interface Child {
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function startCli(args: string[], dataDir = data.dir): Child {
  const child = spawn(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], {
    cwd: join(import.meta.dirname, "..", ".."),
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { process: child, exited };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const fetchedInState = (): number => {
  if (!existsSync(join(data.dir, "pipeline", "state.db"))) return 0;
  try {
    return stateRows<{ n: number }>(data.dir, "SELECT count(*) AS n FROM records")[0]!.n;
  } catch {
    return 0; // the schema is not there yet
  }
};
const timedtextRequests = (): number => world.standin.stats.byEndpoint.timedtext;

describe("the pipeline CLI", () => {
  it("resumes a run killed with SIGKILL mid-fetch: every caption track fetched exactly once, nothing lost; a second run meanwhile is refused with exit 3", async () => {
    const first = startCli(["run", "--channels", list, "--origin", world.standin.origin, "--concurrency", "2", "--no-build"]);
    await until(() => fetchedInState() >= 25, 60_000, "the first run to fetch 25 transcripts");

    // Stall every new watch page: fetches in flight finish their caption request and commit,
    // the next ones hang. Then the kill lands while fetches are open, with no result in limbo.
    world.standin.setFault({ kind: "slow", endpoint: "watch", delayMs: 30_000 });
    let stableSince = Date.now();
    let last = "";
    await until(() => {
      const now = `${fetchedInState()}:${timedtextRequests()}`;
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      }
      return fetchedInState() === timedtextRequests() && Date.now() - stableSince > 600;
    }, 30_000, "fetches in flight to settle");
    const fetchedBeforeKill = fetchedInState();
    expect(fetchedBeforeKill).toBeLessThan(world.corpus.videoCount - 10);

    const second = startCli(["run", "--channels", list, "--origin", world.standin.origin]);
    const refused = await second.exited;
    expect(refused.code).toBe(EXIT.locked);
    expect(refused.stderr).toMatch(/Another pipeline run holds .*run\.lock \(pid \d+/);

    first.process.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(existsSync(join(data.dir, "pipeline", "run.lock"))).toBe(true); // left behind by the dead run
    world.standin.setFault(null);

    const resumed = startCli(["run", "--channels", list, "--origin", world.standin.origin, "--concurrency", "2"]);
    const done = await resumed.exited;
    expect(done.stderr).toContain("took over the lock of run");
    expect(done.code).toBe(EXIT.ok);
    expect(done.stdout).toMatch(/pipeline run ok \(exit 0\)/);

    const withTranscript = Array.from({ length: world.corpus.videoCount }, (_, i) => world.corpus.videoAt(i));
    for (const video of withTranscript) {
      const counts = world.standin.stats.byVideo[video.videoId];
      expect(counts?.timedtext ?? 0, video.videoId).toBe(video.transcripts.length > 0 ? 1 : 0);
    }
    const expected = withTranscript.filter((v) => v.transcripts.length > 0).length;
    expect(fetchedInState()).toBe(expected);
    expect(readManifest(dataDirLayout(data.dir).current).counts.transcripts).toBe(expected);
  });

  it("exits 2 with the usage on a bad flag or a bad channel list line", async () => {
    const badFlag = await startCli(["run", "--channels", list, "--rate", "fast"]).exited;
    expect(badFlag.code).toBe(EXIT.usage);
    expect(badFlag.stderr).toContain('Expected the "--rate" option to be a count per interval');
    const badList = join(data.dir, "bad.txt");
    writeFileSync(badList, "@fine\nnot a channel\n");
    const badLine = await startCli(["run", "--channels", badList, "--origin", world.standin.origin]).exited;
    expect(badLine.code).toBe(EXIT.usage);
    expect(badLine.stderr).toContain("bad.txt:2: not a channel id");
  });
});
