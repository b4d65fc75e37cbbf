/** Builds the serialized FlexSearch index of titles and channel names from the final database. */
import Database from "better-sqlite3";
import { writeFile } from "node:fs/promises";
import { createTitleIndex, exportTitleIndex } from "../title-index.js";

export async function buildTitleIndex(databasePath: string, outPath: string): Promise<void> {
  const db = new Database(databasePath, { readonly: true });
  const index = createTitleIndex();
  try {
    const rows = db
      .prepare("SELECT v.id, v.title, c.title AS channel FROM videos v JOIN channels c ON c.id = v.channel ORDER BY v.id")
      .iterate() as Iterable<{ id: number; title: string; channel: string }>;
    for (const row of rows) index.add(row);
  } finally {
    db.close();
  }
  await writeFile(outPath, await exportTitleIndex(index));
}
