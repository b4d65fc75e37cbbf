/** Small helpers for the text content of tool answers. */

const MARK = /<\/?mark>/g;

/** A search snippet as plain text: the HTML escaping undone (`&amp;` last, so `&amp;lt;` stays `&lt;`), matches in **bold**. */
export function plainSnippet(snippet: string): string {
  const bold = snippet.replace(MARK, "**");
  // Most snippets escape nothing: one pass for the marks, and the five for entities only where there is one.
  if (!bold.includes("&")) return bold;
  return bold
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
