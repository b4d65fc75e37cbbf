/**
 * Read-ahead for the search memory: worker threads read, in parallel, the
 * parts of the database that `warm()` is about to read one page at a time,
 * so that those reads find them in the operating system's cache.
 *
 * The FTS5 index's pages are scattered over the file (its final segment is
 * written into pages freed by the segments it replaced), so one reader
 * waiting on each page in turn gets a fraction of what the disk can give;
 * several readers at once keep more requests in flight. What the workers
 * read is a hint and nothing else: if they are slow, fail or read the wrong
 * pages, the warm-up still reads everything itself.
 */
import { tsWorker } from "../../../pipeline/artifact/ts-worker.js";
import type Database from "better-sqlite3";
import { leafRowid, type ListPages } from "./index-memory.js";

/** One statement run to its end in a worker, its rows discarded. */
export interface PrimeJob {
  sql: string;
  args: number[];
}

/** What a read-ahead thread (prime-worker.ts) is given: the database file and its share of the jobs. */
export interface PrimeWorkerData {
  path: string;
  jobs: PrimeJob[];
}

/**
 * Jobs that read the FTS5 segment pages (`transcript_fts_data` rows with the
 * rowids FTS5 gives a segment's leaf pages: the segment id above bit 37, the
 * page number below) in `parts` ranges per segment, from the segment index.
 */
export function indexPrimeJobs(db: Database.Database, parts: number): PrimeJob[] {
  const segments = db.prepare("SELECT segid, max(pgno) AS pages FROM transcript_fts_idx GROUP BY segid").all() as { segid: number; pages: number }[];
  const jobs: PrimeJob[] = [];
  const sql = "SELECT length(block) FROM transcript_fts_data WHERE id BETWEEN ? AND ?";
  for (const { segid, pages } of segments) {
    const base = leafRowid(segid, 0);
    const step = Math.ceil((pages + 1) / parts);
    for (let from = 0; from <= pages; from += step) {
      // The last range runs to the end of the segment's leaf ids (its doclist-index pages start at bit 36).
      const to = from + step > pages ? 2 ** 36 - 1 : from + step - 1;
      jobs.push({ sql, args: [base + from, base + to] });
    }
  }
  return jobs;
}

/**
 * Jobs that read the leaf pages of `lists` (index-memory.ts) of FTS5 table
 * `table` in the order given, in ranges of at most `pagesPerJob` pages, as
 * far as `budgetBytes` reaches at `pageBytes` a page (FTS5's leaf page
 * size, `ftsPageBytes`).
 */
export function listPrimeJobs(table: string, lists: readonly ListPages[], budgetBytes: number, pageBytes: number, pagesPerJob = 1024): PrimeJob[] {
  const sql = `SELECT length(block) FROM ${table}_data WHERE id BETWEEN ? AND ?`;
  const jobs: PrimeJob[] = [];
  let pages = Math.ceil(budgetBytes / pageBytes);
  for (const { segid, first, last } of lists) {
    for (let from = first; from <= last && pages > 0; from += pagesPerJob) {
      const to = Math.min(last, from + pagesPerJob - 1);
      jobs.push({ sql, args: [leafRowid(segid, from), leafRowid(segid, to)] });
      pages -= to - from + 1;
    }
  }
  return jobs;
}

/** Jobs that read the text of videos `1..lastRank` (the most viewed), in `parts` ranges. */
export function textPrimeJobs(lastRank: number, parts: number): PrimeJob[] {
  const sql = "SELECT length(substr(t.script, -1)) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id BETWEEN ? AND ?";
  const step = Math.max(1, Math.ceil(lastRank / parts));
  const jobs: PrimeJob[] = [];
  for (let from = 1; from <= lastRank; from += step) jobs.push({ sql, args: [from, Math.min(lastRank, from + step - 1)] });
  return jobs;
}

/** `items` dealt round robin into `parts` lists (at least one). */
export function roundRobin<T>(items: readonly T[], parts: number): T[][] {
  const shares = Array.from({ length: Math.max(1, parts) }, (): T[] => []);
  items.forEach((item, i) => shares[i % shares.length]!.push(item));
  return shares;
}

/**
 * Runs the jobs over `threads` workers, round robin, and resolves when all
 * have finished; never rejects (a failed read-ahead is only a slower warm-up).
 */
export async function primeInWorkers(file: string, jobs: readonly PrimeJob[], threads: number): Promise<void> {
  await Promise.all(
    roundRobin(jobs, threads)
      .filter((share) => share.length > 0)
      .map(
        (share) =>
          new Promise<void>((resolve) => {
            const data: PrimeWorkerData = { path: file, jobs: share };
            const worker = tsWorker(new URL("./prime-worker.ts", import.meta.url), data);
            worker.once("message", () => resolve());
            worker.once("error", () => resolve());
            worker.once("exit", () => resolve());
          }),
      ),
  );
}
