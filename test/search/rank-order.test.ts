import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { rankOrderedMatches } from "../../server/search/shard.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

describe("matches in popularity order below a rank", () => {
  let set: TempArtifacts;
  let db: Database.Database;
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 11, videos: 300, channels: 4 });
    set = await buildTempArtifacts(Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i)));
    db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
  }, 60_000);
  afterAll(() => {
    db?.close();
    set?.cleanup();
  });

  it("are the rows FTS5 lists with the bound as a constraint, at every bound, limit and offset", () => {
    const lastRank = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
    const constrained = (table: string) =>
      db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid <= ? ORDER BY rowid LIMIT ? OFFSET ?`).pluck();
    const cases: [string, string[]][] = [
      ["transcript_fts", ["script : (the)", "script : (the river)", "script : (of the people)", 'script : ("of the")', "script : (zzzznotaword)"]],
      ["phrase_pairs", ['pairs : "of_the"', 'pairs : "of_the the_same"', 'pairs : "in_the"']],
    ];
    let rows = 0;
    let cut = 0;
    for (const [table, expressions] of cases) {
      const matches = rankOrderedMatches(db, table, lastRank);
      const reference = constrained(table);
      for (const expression of expressions) {
        for (const bound of [0, 1, 17, 150, lastRank - 1, lastRank, lastRank + 5]) {
          for (const [limit, offset] of [[0, 0], [1, 0], [10, 0], [10, 5], [1001, 0], [20, 95], [5, 10_000]] as const) {
            const expected = reference.all(expression, bound, limit, offset) as number[];
            expect(matches(expression, { maxRank: bound, where: "", params: [], rowsShare: 1 }, limit, offset), `${expression} ≤ ${bound} ${limit}+${offset}`).toEqual(expected);
            rows += expected.length;
            const all = reference.all(expression, lastRank, 1e9, 0) as number[];
            if (bound < lastRank && all.some((id) => id > bound) && expected.length < limit) cut++;
          }
        }
      }
    }
    // The cases cover bounds that cut the lists short of the limit, which is where rows are read one at a time.
    expect(rows).toBeGreaterThan(5000);
    expect(cut).toBeGreaterThan(50);
  });
});
