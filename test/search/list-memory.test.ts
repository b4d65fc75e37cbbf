import Database from "better-sqlite3";
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ftsPageBytes, leafRowid, longestLists, openIndexConnection, warmLists, type ListPages } from "../../server/search/memory/index-memory.js";

/**
 * An FTS5 table whose common words have lists of many leaf pages (small
 * pages, `pgsz` 128): the shape of the phrase-pair index's common pairs at
 * 500,000 transcripts, in a few hundred rows.
 */
function buildWords(file: string): void {
  const db = new Database(file);
  db.exec("CREATE VIRTUAL TABLE words USING fts5(body, content = '')");
  db.exec("INSERT INTO words (words, rank) VALUES ('pgsz', 128)");
  const insert = db.prepare("INSERT INTO words (rowid, body) VALUES (?, ?)");
  db.transaction(() => {
    for (let id = 1; id <= 600; id++) {
      const rare = `r${id % 97} s${id % 13}`;
      const body = id % 3 === 0 ? `of the ${rare} of the end` : id % 5 === 0 ? `at the ${rare}` : `of ${rare} the`;
      insert.run(id, body);
    }
  })();
  db.exec("INSERT INTO words (words) VALUES ('optimize')");
  db.close();
}

/** Whether a term starts on an FTS5 leaf page: its page index (after `szLeaf`, bytes 2-3 of the header) is not empty. */
function startsTerm(block: Buffer): boolean {
  return block.length > block.readUInt16BE(2);
}

const pagesOf = (list: ListPages) => list.last - list.first + 1;

describe("the longest term lists of an FTS5 index, held in memory", () => {
  let root: string;
  let file: string;
  let leaves: Map<number, Buffer>;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "ts-lists-"));
    file = join(root, "words.db");
    buildWords(file);
    const db = new Database(file, { readonly: true });
    const rows = db.prepare("SELECT id, block FROM words_data WHERE id >= ? ORDER BY id").raw().all(2 ** 37) as [number, Buffer][];
    // Leaves only: the doclist indexes have bit 36 set.
    leaves = new Map(rows.filter(([id]) => Math.floor(id / 2 ** 36) % 2 === 0));
    db.close();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds each list's pages from the segment index, as FTS5's page format marks them, longest first", () => {
    const db = new Database(file, { readonly: true });
    try {
      const lists = longestLists(db, "words", 1);
      // Every leaf page, each in exactly one list.
      const covered = lists.flatMap((list) => Array.from({ length: pagesOf(list) }, (_, i) => leafRowid(list.segid, list.first + i)));
      expect(covered.sort((a, b) => a - b)).toEqual([...leaves.keys()]);
      for (const list of lists) {
        // A list starts where a term starts, and no term starts on its other pages.
        expect(startsTerm(leaves.get(leafRowid(list.segid, list.first))!)).toBe(true);
        for (let page = list.first + 1; page <= list.last; page++) expect(startsTerm(leaves.get(leafRowid(list.segid, page))!)).toBe(false);
      }
      expect(lists.map(pagesOf)).toEqual(lists.map(pagesOf).sort((a, b) => b - a));
      // "of" and "the" (in every row) fill many pages; lists of rare words share one.
      const long = longestLists(db, "words", 4);
      expect(long.length).toBeGreaterThanOrEqual(2);
      expect(long).toEqual(lists.filter((list) => pagesOf(list) >= 4));
      expect(lists.some((list) => pagesOf(list) === 1)).toBe(true);
    } finally {
      db.close();
    }
  });

  it("holds the lists past the mapped start in the connection's own cache: they answer after the file's copies of them are destroyed", async () => {
    const copy = join(root, "copy.db");
    copyFileSync(file, copy);
    const query = "SELECT rowid FROM words WHERE words MATCH ? ORDER BY rowid";
    const expected = new Map<string, number[]>();
    const plain = new Database(copy, { readonly: true });
    for (const q of ['"of the"', "of AND the AND r5", "at the", '"of the end"']) expected.set(q, plain.prepare(query).pluck().all(q) as number[]);
    const pages = plain.prepare("SELECT pageno FROM dbstat WHERE name = 'words_data'").pluck().all() as number[];
    const pageSize = plain.pragma("page_size", { simple: true }) as number;
    const total = plain.prepare("SELECT sum(length(block)) FROM words_data").pluck().get() as number;
    plain.close();
    expect([...expected.values()].every((ids) => ids.length > 0)).toBe(true);

    // Mapped nowhere, as the lists of an index past the mapped start.
    const held = openIndexConnection(copy, 64 * 2 ** 20, 0);
    try {
      let pauses = 0;
      const lists = longestLists(held, "words", 1);
      const warmth = await warmLists(held, "words", lists, { budgetBytes: 64 * 2 ** 20, sliceRows: 4, pause: async () => void pauses++ });
      expect(warmth).toMatchObject({ outcome: "complete", lists: lists.length, bytes: total });
      expect(pauses).toBeGreaterThan(lists.length);

      // Zeros over every page of the table's b-tree, in the file.
      const fd = openSync(copy, "r+");
      for (const page of pages) writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (page - 1) * pageSize);
      closeSync(fd);
      const cold = new Database(copy, { readonly: true });
      try {
        expect(() => cold.prepare(query).pluck().all('"of the"')).toThrow(/malformed/);
      } finally {
        cold.close();
      }
      for (const [q, ids] of expected) expect(held.prepare(query).pluck().all(q)).toEqual(ids);
    } finally {
      held.close();
    }
  });

  it("reads the longest lists first until the budget, and stops when the connection is closed", async () => {
    const db = openIndexConnection(file, 64 * 2 ** 20);
    try {
      const lists = longestLists(db, "words", 1);
      const longest = pagesOf(lists[0]!);
      const budget = 128 * (longest + pagesOf(lists[1]!));
      const warmth = await warmLists(db, "words", lists, { budgetBytes: budget, sliceRows: 2 });
      expect(warmth.outcome).toBe("budget");
      expect(warmth.lists).toBeGreaterThanOrEqual(1);
      expect(warmth.lists).toBeLessThan(lists.length);
      // A slice past the budget at most.
      expect(warmth.bytes).toBeLessThanOrEqual(budget + 2 * 4096);
    } finally {
      db.close();
    }
    const closing = openIndexConnection(file, 64 * 2 ** 20);
    let pauses = 0;
    const lists = longestLists(closing, "words", 1);
    const closed = await warmLists(closing, "words", lists, { budgetBytes: 64 * 2 ** 20, pause: async () => void (++pauses === 3 && closing.close()) });
    expect(closed.outcome).toBe("closed");
    expect(closed.lists).toBeLessThan(lists.length);
  });

  it("reads FTS5's leaf page size from the table's options, its own default where none is set", () => {
    const db = new Database(file, { readonly: true });
    const plain = new Database(":memory:");
    try {
      expect(ftsPageBytes(db, "words")).toBe(128);
      plain.exec("CREATE VIRTUAL TABLE other USING fts5(body)");
      expect(ftsPageBytes(plain, "other")).toBe(4050);
      // The leaves are rows of about that many bytes (a page index may run a little past it), whatever the database's page size.
      expect(db.prepare("SELECT avg(length(block)) FROM words_data WHERE id >= ?").pluck().get(2 ** 37)).toBeLessThan(2 * 128);
    } finally {
      db.close();
      plain.close();
    }
  });

});
