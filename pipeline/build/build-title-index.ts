/** Builds the serialized FlexSearch index of titles and channel names from the final database. */
import Database from "better-sqlite3";
import { writeFile } from "node:fs/promises";
import { createTitleIndex, exportTitleIndex } from "../artifact/search-index/index.js";
import { checkpoint } from "../command/interrupt.js";

/** Videos indexed between two checks of the signal. */
const CHUNK_ROWS = 5000;

/** Reads the videos in chunks by rowid, so the event loop runs and `signal` is checked between them. */
export async function buildTitleIndex(databasePath: string, outPath: string, signal?: AbortSignal): Promise<void> {
  const db = new Database(databasePath, { readonly: true });
  const index = createTitleIndex();
  try {
    const chunk = db.prepare(
      "SELECT v.id, v.title, c.title AS channel FROM videos v JOIN channels c ON c.id = v.channel WHERE v.id > ? ORDER BY v.id LIMIT ?",
    );
    for (let after = 0; ; ) {
      const rows = chunk.all(after, CHUNK_ROWS) as Array<{ id: number; title: string; channel: string }>;
      if (rows.length === 0) break;
      for (const row of rows) index.add(row);
      after = rows[rows.length - 1]!.id;
      await checkpoint(signal);
    }
  } finally {
    db.close();
  }
  await writeFile(outPath, await exportTitleIndex(index));
}
