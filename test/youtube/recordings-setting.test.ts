/**
 * YOUTUBE_RECORDINGS_DIR: unset or empty runs without the recorded responses;
 * a folder that is missing or lacks a recorded file is an error, never a
 * silent skip or an HTTP 500 from the stand-in.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesOf, recordedFixtures } from "../../scripts/youtube-standin/fixtures.js";
import { startStandin } from "../../scripts/youtube-standin/server.js";
import { recordingsDirFrom } from "../helpers/recordings.js";
import { testCorpus } from "./helpers/records.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding the recorded file names, each with placeholder content, except `leaveOut`. */
function recordingsFolder(leaveOut: string[] = []): string {
  const dir = mkdtempSync(path.join(tmpdir(), "recordings-"));
  made.push(dir);
  for (const name of filesOf(recordedFixtures(dir))) if (!leaveOut.includes(name)) writeFileSync(path.join(dir, name), "{}");
  return dir;
}

describe("YOUTUBE_RECORDINGS_DIR", () => {
  it("unset or empty: no recordings, so the recorded tests are skipped", () => {
    expect(recordingsDirFrom({})).toBeUndefined();
    expect(recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: "" })).toBeUndefined();
  });

  it("a folder with every recorded file: its absolute path, a relative one taken from the repository root", () => {
    const dir = recordingsFolder();
    expect(recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: dir })).toBe(dir);
    const repoRoot = path.resolve(import.meta.dirname, "../..");
    expect(recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: path.relative(repoRoot, dir) })).toBe(dir);
  });

  it("a folder that does not exist: an error naming the setting and the folder", () => {
    const missing = path.join(tmpdir(), "no-such-recordings-folder");
    expect(() => recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: missing })).toThrow(`YOUTUBE_RECORDINGS_DIR=${missing}: ${missing} is not a folder`);
  });

  it("an empty folder or one missing a file: an error listing the missing files", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "recordings-"));
    made.push(empty);
    expect(() => recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: empty })).toThrow(/lacks 15 recorded file\(s\): transcript\.xml\.static, youtube\.html\.static/);
    const partial = recordingsFolder(["youtube_unplayable.innertube.json.static"]);
    expect(() => recordingsDirFrom({ YOUTUBE_RECORDINGS_DIR: partial })).toThrow(/lacks 1 recorded file\(s\): youtube_unplayable\.innertube\.json\.static$/);
  });

  it("the stand-in refuses to start over an incomplete recordings folder instead of answering 500 later", async () => {
    const partial = recordingsFolder(["youtube.html.static"]);
    await expect(startStandin({ corpus: testCorpus().corpus, recordingsDir: partial })).rejects.toThrow(
      /cannot serve the recorded YouTube responses: .* lacks 1 recorded file\(s\): youtube\.html\.static/,
    );
    const folderAsFile = path.join(recordingsFolder(), "youtube.html.static");
    await expect(startStandin({ corpus: testCorpus().corpus, recordingsDir: folderAsFile })).rejects.toThrow(/is not a folder/);
  });
});
