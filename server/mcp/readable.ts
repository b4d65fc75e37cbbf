/** Small helpers for the text content of tool answers. */

/** A search snippet as plain text: the HTML escaping undone (`&amp;` last, so `&amp;lt;` stays `&lt;`), matches in **bold**. */
export function plainSnippet(snippet: string): string {
  return snippet
    .replaceAll("<mark>", "**")
    .replaceAll("</mark>", "**")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

/** 3725 → "1:02:05", 65 → "1:05". */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** 1234567 → "1,234,567" (as toLocaleString("en-US") writes integers, without its per-call cost). */
export function count(n: number): string {
  return Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : n.toLocaleString("en-US");
}
