/**
 * Timedtext documents in the three formats YouTube serves: the default XML
 * (`<transcript><text start dur>`, text escaped twice, as YouTube does),
 * `fmt=srv3` and `fmt=json3`.
 */
import type { SegmentRecord } from "../../pipeline/artifact/contract/contract.js";

export type TimedtextFormat = "xml" | "srv3" | "json3";

export function timedtextFormat(fmt: string | null): TimedtextFormat {
  if (fmt === "srv3") return "srv3";
  if (fmt === "json3") return "json3";
  return "xml";
}

export function renderTimedtext(segments: readonly SegmentRecord[], format: TimedtextFormat): { body: string; contentType: string } {
  if (format === "json3") {
    const events = segments.map((s) => ({
      tStartMs: Math.round(s.start * 1000),
      dDurationMs: Math.round(s.duration * 1000),
      segs: [{ utf8: s.text }],
    }));
    return { body: JSON.stringify({ wireMagic: "pb3", pens: [{}], events }), contentType: "application/json; charset=UTF-8" };
  }
  if (format === "srv3") {
    const cues = segments
      .map((s) => `<p t="${Math.round(s.start * 1000)}" d="${Math.round(s.duration * 1000)}">${escapeXml(s.text)}</p>`)
      .join("\n");
    return {
      body: `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3">\n<body>\n${cues}\n</body>\n</timedtext>\n`,
      contentType: "text/xml; charset=UTF-8",
    };
  }
  const cues = segments
    .map((s) => `<text start="${decimal(s.start)}" dur="${decimal(s.duration)}">${escapeXml(escapeHtml(s.text))}</text>`)
    .join("");
  return { body: `<?xml version="1.0" encoding="utf-8" ?><transcript>${cues}</transcript>`, contentType: "text/xml; charset=UTF-8" };
}

/** Cues of a default-format document that is already written out (the recorded transcript.xml.static). */
export function cuesOfXml(xml: string): SegmentRecord[] {
  const out: SegmentRecord[] = [];
  for (const match of xml.matchAll(/<text start="([\d.]+)"(?: dur="([\d.]+)")?>([\s\S]*?)<\/text>/g)) {
    const text = unescapeXml(match[3] ?? "").replace(/<[^>]*>/g, "").trim();
    if (text) out.push({ start: Number(match[1]), duration: Number(match[2] ?? 0), text });
  }
  return out;
}

/** Seconds to at most three decimals, as YouTube writes them ("12.5", "3.04", "7"); integer formatting only. */
function decimal(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const whole = Math.trunc(ms / 1000);
  let fraction = ms - whole * 1000;
  if (fraction === 0) return String(whole);
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${whole}.${String(fraction).padStart(digits, "0")}`;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => XML_ESCAPES[c] as string);
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}
