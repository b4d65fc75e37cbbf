/**
 * Entity decoding for caption text and page fragments. Caption text arrives
 * escaped twice (XML, then HTML), so the two decoders are kept apart and the
 * caller applies each exactly once.
 */

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

// The named HTML entities that occur in caption text and page attributes;
// anything else is left as written rather than guessed.
const HTML_ENTITIES: Record<string, string> = {
  ...XML_ENTITIES,
  nbsp: "\u00a0",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  eacute: "é",
  egrave: "è",
  agrave: "à",
  ccedil: "ç",
  uuml: "ü",
  ouml: "ö",
  auml: "ä",
  szlig: "ß",
  ntilde: "ñ",
  iexcl: "¡",
  iquest: "¿",
  times: "×",
  shy: "\u00ad",
};

const ENTITY = /&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);/g;

function decodeWith(text: string, named: Record<string, string>): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, body: string) => {
    if (body.startsWith("#")) {
      const hex = body[1] === "x" || body[1] === "X";
      const codePoint = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      if (!Number.isFinite(codePoint) || codePoint <= 0 || codePoint > 0x10ffff) return whole;
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) return whole;
      return String.fromCodePoint(codePoint);
    }
    return named[body] ?? named[body.toLowerCase()] ?? whole;
  });
}

/** The XML decode: the five predefined entities and character references. */
export function decodeXmlEntities(text: string): string {
  return decodeWith(text, XML_ENTITIES);
}

/** The HTML decode: character references and the common named entities. */
export function decodeHtmlEntities(text: string): string {
  return decodeWith(text, HTML_ENTITIES);
}
