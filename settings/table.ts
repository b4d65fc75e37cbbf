/** The README's settings table (Markdown), made from the rows: scripts/settings-table.ts writes it, a test compares it. */
import { SETTINGS } from "./settings.js";

const escape = (text: string) => text.replace(/\|/g, "\\|");

export function settingsTable(): string {
  return [
    "| variable | default | read by | meaning |",
    "|---|---|---|---|",
    ...SETTINGS.map(
      (s) => `| \`${s.name}\` | ${s.default === "" ? "(none)" : `\`${escape(s.default)}\``} | ${s.readBy.join(", ")} | ${escape(s.help)} |`,
    ),
  ].join("\n");
}

/** The table between README.md's `settings:start` and `settings:end` markers, or undefined without them. */
export function readmeSettingsTable(readme: string): string | undefined {
  return /<!-- settings:start[^>]*-->\n([\s\S]*?)\n?<!-- settings:end -->/.exec(readme)?.[1];
}
