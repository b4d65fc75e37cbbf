/** Reading a set's files through into the page cache: every byte of every file once, stopped by its signal, and only where the files fit beside the server's own memory. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { availableMemory, prereadFiles, prereadFits } from "../../server/artifact-set/set-preread.js";

const dir = mkdtempSync(path.join(tmpdir(), "set-preread-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 4096;

function fileOf(name: string, bytes: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.alloc(bytes, 7));
  return file;
}

describe("prereadFiles", () => {
  it("reads every file to its end, whatever its size against the chunk size", async () => {
    const sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5];
    const files = sizes.map((bytes, i) => fileOf(`f${i}`, bytes));
    const read = await prereadFiles(files, new AbortController().signal, CHUNK);
    expect(read).toMatchObject({ bytes: sizes.reduce((a, b) => a + b, 0), outcome: "complete" });
  });

  it("stops when its signal aborts, having read no further", async () => {
    const files = [fileOf("a", 10 * CHUNK), fileOf("b", 10 * CHUNK)];
    const stop = new AbortController();
    stop.abort();
    expect(await prereadFiles(files, stop.signal, CHUNK)).toMatchObject({ bytes: 0, outcome: "stopped" });
  });

  it("rejects on a file that is not there (the caller logs it)", async () => {
    await expect(prereadFiles([path.join(dir, "missing")], new AbortController().signal)).rejects.toThrow(/ENOENT/);
  });
});

describe("prereadFits", () => {
  it("holds for files within the memory available less the server's own, and not beyond", () => {
    expect(prereadFits(600, 400, 1000)).toBe(true);
    expect(prereadFits(601, 400, 1000)).toBe(false);
    expect(prereadFits(1, 0, 0)).toBe(false);
  });
});

describe("availableMemory", () => {
  const system = { free: 10_000, total: 16_000 };
  it("is what the system says is available without a limit (none, or one above the machine's memory)", () => {
    expect(availableMemory(system, 0, 3_000)).toBe(10_000);
    expect(availableMemory(system, 2 ** 64, 3_000)).toBe(10_000);
  });

  it("within a control group's limit, is what the limit leaves beside the resident memory, where that is less", () => {
    expect(availableMemory(system, 8_000, 3_000)).toBe(5_000);
    expect(availableMemory(system, 15_000, 1_000)).toBe(10_000);
    expect(availableMemory(system, 8_000, 9_000)).toBe(0);
  });
});
