/**
 * The configuration table of README.md, made from the settings rows (settings/rows.ts).
 * `npx tsx scripts/settings-table.ts` prints it; `--write` puts it into README.md
 * between the `settings:start` and `settings:end` markers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { readmeSettingsTable, settingsTable } from "../settings/table.js";

const table = settingsTable();

if (process.argv.includes("--write")) {
  const readme = readFileSync("README.md", "utf8");
  if (readmeSettingsTable(readme) === undefined) throw new Error("README.md has no settings markers");
  writeFileSync("README.md", readme.replace(/(<!-- settings:start[^>]*-->\n)[\s\S]*?(<!-- settings:end -->)/, (_, start: string, end: string) => `${start}${table}\n${end}`));
} else {
  console.log(table);
}
