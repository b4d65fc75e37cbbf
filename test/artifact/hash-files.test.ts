/** The manifest's hashes of a set's files: read and hashed at once (overlapped), on the calling thread or a worker thread, the same bytes' sha256 every way. */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashFiles, hashFilesInWorker, hashFilesOverlapped, INLINE_HASH_BYTES } from "../../pipeline/artifact/manifest/hash-worker.js";

const dir = mkdtempSync(path.join(tmpdir(), "hash-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 4096;
const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function fileOf(name: string, bytes: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, randomBytes(bytes));
  return file;
}

describe("hashing a set's files", () => {
  it("gives each file's sha256, in order, whatever its size against the chunk size", async () => {
    const files = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5].map((bytes, i) => fileOf(`f${i}`, bytes));
    const expected = files.map(sha256);
    expect(await hashFilesOverlapped(files, CHUNK)).toEqual(expected);
    expect(hashFiles(files)).toEqual(expected);
    // Two files of the same bytes, one after the other: the buffers carry nothing from one file into the next.
    const twin = path.join(dir, "twin");
    writeFileSync(twin, readFileSync(files[5]!));
    expect(await hashFilesOverlapped([files[5]!, files[4]!, twin], CHUNK)).toEqual([expected[5], expected[4], expected[5]]);
  });

  it("hashes a set larger than the inline limit on a worker thread, with the same result", async () => {
    const big = fileOf("big", INLINE_HASH_BYTES + 12_345);
    expect(await hashFilesInWorker([big])).toEqual([sha256(big)]);
  });

  it("fails on a file that is not there, naming it", async () => {
    const missing = path.join(dir, "missing");
    await expect(hashFilesOverlapped([fileOf("before", 10), missing])).rejects.toThrow(/missing/);
  });
});
