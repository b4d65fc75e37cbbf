/**
 * Browse lists only "3 weeks ago"; this turns that into an instant so a
 * video has a date before its watch page is read. The result is marked
 * approximate in the state and replaced by the exact date from the feed or
 * the fetched record.
 */

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 7 * 86_400,
  month: 30 * 86_400,
  year: 365 * 86_400,
};

/** ISO 8601 UTC for a relative age such as "3 weeks ago" or "Streamed 2 days ago"; undefined when the text is not one. */
export function approximatePublishedAt(text: string | undefined, nowMs: number): string | undefined {
  if (!text) return undefined;
  const match = /(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago\b/i.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2].toLowerCase()] ?? 0);
  return new Date(nowMs - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
