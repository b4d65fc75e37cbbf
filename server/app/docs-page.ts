/**
 * GET /docs: the OpenAPI document rendered by Swagger UI, served from the
 * swagger-ui-dist package by this server (no CDN), without an API key. The
 * page's own Content-Security-Policy allows exactly what it needs: its
 * scripts and styles from this origin, the document from this origin
 * (connect-src, also for "Try it out"), and the inline SVG icons of the
 * stylesheet (img-src data:). Every other route keeps the strict policy of
 * security-headers.ts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { COMPRESS_MIN_BYTES, chooseEncoding, compress, type Encoding } from "../http/compression.js";
import type { RequestContext } from "../http/context.js";
import { HttpError } from "../problem/http-error.js";
import { assertKnownQuery } from "../http/query.js";

export const DOCS_PATH = "/docs";
const ASSETS = `${DOCS_PATH}/assets/`;

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Transcript Retrieval Service: API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script src="${ASSETS}docs-page.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise load a badge from an outside validator.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
`;

interface Asset {
  contentType: string;
  body: Buffer;
  /** Cache-Control: the page is revalidated, the package's files change only with a new release. */
  cacheControl: string;
  encoded: Partial<Record<Encoding, Buffer>>;
}

let assets: Map<string, Asset> | undefined;

function loadAssets(): Map<string, Asset> {
  const dist = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const file = (name: string) => readFileSync(path.join(dist, name));
  const asset = (contentType: string, body: Buffer, cacheControl = "public, max-age=86400"): Asset => ({ contentType, body, cacheControl, encoded: {} });
  return new Map([
    [DOCS_PATH, asset("text/html; charset=utf-8", Buffer.from(PAGE), "no-cache")],
    [`${ASSETS}swagger-ui.css`, asset("text/css; charset=utf-8", file("swagger-ui.css"))],
    [`${ASSETS}swagger-ui-bundle.js`, asset("text/javascript; charset=utf-8", file("swagger-ui-bundle.js"))],
    [`${ASSETS}docs-page.js`, asset("text/javascript; charset=utf-8", Buffer.from(INIT_SCRIPT), "no-cache")],
  ]);
}

export function isDocsPath(requestPath: string): boolean {
  return requestPath === DOCS_PATH || requestPath.startsWith(`${DOCS_PATH}/`);
}

/**
 * The metrics' route label of a path under /docs: the page, or one label
 * for all its files (a few, so few series); undefined for a file that does
 * not exist, which is a 404 and stays `unmatched` like any other.
 */
export function docsRouteLabel(requestPath: string): string | undefined {
  assets ??= loadAssets();
  const known = assets.has(requestPath === `${DOCS_PATH}/` ? DOCS_PATH : requestPath);
  if (!known) return undefined;
  return requestPath.startsWith(ASSETS) ? `${ASSETS}:file` : DOCS_PATH;
}

/** Answers a request under /docs: the page, one of its files, or a problem. */
export async function serveDocs(ctx: RequestContext): Promise<void> {
  if (ctx.method !== "GET" && ctx.method !== "HEAD") {
    throw new HttpError(405, "method_not_allowed", "This endpoint allows GET, HEAD.", { headers: { Allow: "GET, HEAD" } });
  }
  assets ??= loadAssets();
  const asset = assets.get(ctx.path === `${DOCS_PATH}/` ? DOCS_PATH : ctx.path);
  if (asset === undefined) throw new HttpError(404, "route_not_found", "No such endpoint. See /v1/openapi.json.");
  assertKnownQuery(ctx.query, []);
  const encoding = asset.body.length >= COMPRESS_MIN_BYTES ? chooseEncoding(ctx.req.headers["accept-encoding"]) : undefined;
  let body = asset.body;
  if (encoding !== undefined) body = asset.encoded[encoding] ??= await compress(asset.body, encoding);
  const headers = ctx.headers;
  headers["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY;
  headers["Content-Type"] = asset.contentType;
  headers["Cache-Control"] = asset.cacheControl;
  headers["Vary"] = "Accept-Encoding";
  headers["Content-Length"] = body.length;
  if (encoding !== undefined) headers["Content-Encoding"] = encoding;
  ctx.res.writeHead(200, headers);
  ctx.res.end(ctx.method === "HEAD" ? undefined : body);
}
