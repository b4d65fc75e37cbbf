/**
 * The run's smaller faults: a channel list of many bad lines gives a short
 * error, and a summary file that cannot be written (a full disk) is reported
 * once, with no temporary file left and no rejection.
 */
import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../pipeline/command/exit-codes.js";
import { MAX_PROBLEMS_SHOWN, readChannelList } from "../../pipeline/crawl/read-channel-list.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { bufferedProgress, run, tempDataDir } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";
import { DATA_DIR_NAMES } from "../../pipeline/artifact/layout/layout.js";

let world: SyntheticStandin;
const data = tempDataDir();

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 6, channels: 1, seed: 9 });
});
afterAll(async () => {
  await world?.close();
  data.cleanup();
});

describe("a channel list of 200,000 bad lines", () => {
  it("is refused with the first lines and a count of the rest", async () => {
    const path = join(data.dir, "bad-list.txt");
    writeFileSync(path, "@fine\n" + "not a channel\n".repeat(200_000));
    const error = await readChannelList(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as Error).message.split("\n");
    expect(lines).toHaveLength(MAX_PROBLEMS_SHOWN + 1);
    expect(lines[0]).toBe(`${path}:2: not a channel id (UC…), @handle, channel URL or playlist (PL…, a URL with list=)`);
    expect(lines.at(-1)).toBe(`${path}: ${200_000 - MAX_PROBLEMS_SHOWN} more bad lines not shown`);
  });
});

describe("a summary file that cannot be written", () => {
  const haveDevFull = existsSync("/dev/full");
  it.skipIf(!haveDevFull)("is reported once, its temporary file removed, and the run still ends with its own outcome", async () => {
    // The summary's temporary file (named by this process's pid) opens /dev/full: every write fails with ENOSPC.
    const pipelineDir = join(data.dir, "pipeline");
    mkdirSync(pipelineDir, { recursive: true });
    const temporary = join(pipelineDir, `${DATA_DIR_NAMES.lastRun}.${process.pid}.tmp`);
    symlinkSync("/dev/full", temporary);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const output = bufferedProgress();
    try {
      const list = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
      const summary = await run({ dataDir: data.dir, channelsFile: list, origin: world.standin.origin, build: false, progress: output.progress });
      expect(summary.exitCode).toBe(EXIT.ok);
      const reports = output.text().split("\n").filter((line) => line.includes(`could not write ${join(pipelineDir, DATA_DIR_NAMES.lastRun)}`));
      expect(reports).toHaveLength(1);
      expect(reports[0]).toContain("ENOSPC");
      expect(() => lstatSync(temporary)).toThrow();
      expect(existsSync(join(pipelineDir, DATA_DIR_NAMES.lastRun))).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
  if (!haveDevFull) console.log("skipped the full-disk summary test: /dev/full does not exist here");
});
