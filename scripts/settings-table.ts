/**
 * The settings table of docs/settings.md, made from the settings rows (settings/rows.ts).
 * `npx tsx scripts/settings-table.ts` prints it; `--write` puts it into that file
 * between the `settings:start` and `settings:end` markers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { documentedSettingsTable, SETTINGS_TABLE_FILE, settingsTable } from "../settings/table.js";

const table = settingsTable();

if (process.argv.includes("--write")) {
  const doc = readFileSync(SETTINGS_TABLE_FILE, "utf8");
  if (documentedSettingsTable(doc) === undefined) throw new Error(`${SETTINGS_TABLE_FILE} has no settings markers`);
  writeFileSync(SETTINGS_TABLE_FILE, doc.replace(/(<!-- settings:start[^>]*-->\n)[\s\S]*?(<!-- settings:end -->)/, (_, start: string, end: string) => `${start}${table}\n${end}`));
} else {
  console.log(table);
}
