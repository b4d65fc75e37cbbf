/**
 * Proactive content negotiation on `Accept` (RFC 9110 12.5.1): each media
 * type offered gets the weight of the most specific range that matches it
 * (`text/vtt` before `text/*` before `*\/*`); the heaviest above 0 wins,
 * ties going to the one offered first. No header, or an empty one, accepts
 * anything. Parameters other than `q` are ignored; malformed ranges are
 * skipped rather than refused.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [range = "", ...params] = part.split(";").map((s) => s.trim());
    const [type = "", subtype = "", extra] = range.toLowerCase().split("/");
    if (extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === "*" && subtype !== "*")) continue;
    let q = 1;
    for (const param of params) {
      const [name = "", value = ""] = param.split("=").map((s) => s.trim());
      // q is 0-1 with up to three decimals (RFC 9110 12.4.2); anything else makes the range unreadable.
      if (name.toLowerCase() === "q") q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The weight `ranges` give `mediaType` (`type/subtype`, lower case): that of the most specific matching range, 0 when none matches. */
function weightOf(ranges: readonly MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split("/");
  let best = -1;
  let weight = 0;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === "*" ? 1 : range.type === "*" ? 0 : -1;
    if (specificity > best) [best, weight] = [specificity, range.q];
    else if (specificity === best && specificity >= 0) weight = Math.max(weight, range.q);
  }
  return weight;
}

/** The first of `offered` (in order of preference) that `accept` weighs heaviest; undefined when it accepts none of them. */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === "") return offered[0];
  const ranges = parseAccept(accept);
  // A header with no readable range says nothing: treated as absent.
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let chosenWeight = 0;
  for (const mediaType of offered) {
    const weight = weightOf(ranges, mediaType);
    if (weight > chosenWeight) [chosen, chosenWeight] = [mediaType, weight];
  }
  return chosen;
}
