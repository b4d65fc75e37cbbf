/**
 * Content-Encoding negotiation. Bodies under `COMPRESS_MIN_BYTES` go out as
 * they are: headers and CPU would cost more than the bytes saved.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";

export const COMPRESS_MIN_BYTES = 1024;

export type Encoding = "br" | "gzip";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Picks br or gzip from an Accept-Encoding header (q-values honoured, br wins ties), or undefined for identity. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [rawName, ...paramParts] = part.split(";");
    const name = rawName?.trim().toLowerCase();
    if (!name) continue;
    let weight = 1;
    for (const param of paramParts) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (match?.[1] !== undefined) weight = Number(match[1]);
    }
    q.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: Encoding): number => q.get(encoding) ?? q.get("*") ?? 0;
  const br = weightOf("br");
  const gz = weightOf("gzip");
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? "br" : "gzip";
}

export async function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === "br") {
    // Quality 5 compresses JSON nearly as well as 11 at a fraction of the CPU.
    return brotli(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      },
    });
  }
  return gzip(body, { level: 6 });
}
