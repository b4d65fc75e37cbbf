/**
 * GET /docs: the rendered API reference, opened in headless Chromium (Debian's
 * `chromium`, driven by playwright-core). Every operation of the served
 * document must be on the page, with no CSP violation, console error or
 * request to another origin; a screenshot goes to test-results/docs-page.png.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DOCS_CONTENT_SECURITY_POLICY } from "../../server/app/docs-page.js";
import { SECURITY_HEADERS } from "../../server/http/security-headers.js";
import { call } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.log(`docs-page.test.ts: the browser test is skipped: no ${CHROMIUM} (apt-get install -y chromium)`);

const SCREENSHOT = path.join(import.meta.dirname, "../../test-results/docs-page.png");

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

describe("GET /docs", () => {
  test("serves the page and its files without a key, under a policy of their own; the API keeps its strict one", async () => {
    const page = await fetch(`${server.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
    for (const source of sources.filter((s) => s.startsWith("/"))) {
      const asset = await fetch(`${server.baseUrl}${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get("content-security-policy"), source).toBe(DOCS_CONTENT_SECURITY_POLICY);
      expect((await asset.arrayBuffer()).byteLength, source).toBeGreaterThan(100);
    }
    const api = await call(server.baseUrl, "/v1/stats", { key: server.keys.pro });
    expect(api.headers.get("content-security-policy")).toBe(SECURITY_HEADERS["Content-Security-Policy"]);
    const missing = await call(server.baseUrl, "/docs/assets/nothing.js");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-security-policy")).toBe(SECURITY_HEADERS["Content-Security-Policy"]);
    expect((await call(server.baseUrl, "/docs", { method: "POST" })).status).toBe(405);
  });

  test.skipIf(!hasChromium)("renders every operation of the document in Chromium, with no CSP violation or console error", { timeout: 60_000 }, async () => {
    const doc = (await call(server.baseUrl, "/v1/openapi.json")).body;
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      const origin = new URL(server.baseUrl).origin;
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
      });
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      page.on("request", (request) => {
        const url = request.url();
        if (!url.startsWith(origin) && !url.startsWith("data:")) problems.push(`request to another origin: ${url}`);
      });
      page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
      // Reported as a console error, which the listener above collects.
      await page.addInitScript(`document.addEventListener("securitypolicyviolation", (event) =>
        console.error("CSP violation: " + event.violatedDirective + " " + event.blockedURI));`);

      const response = await page.goto(`${server.baseUrl}/docs`, { waitUntil: "networkidle" });
      expect(response?.status()).toBe(200);
      await page.waitForSelector(".opblock", { timeout: 30_000 });

      const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
        Object.entries(ops).map(([method, op]) => ({ path: p, method, op })),
      );
      expect(operations.length).toBeGreaterThan(5);
      for (const { path: opPath, method, op } of operations) {
        const block = page.locator(`[id="operations-${op.tags[0]}-${op.operationId}"]`);
        expect(await block.count(), `${method} ${opPath}`).toBe(1);
        expect((await block.locator(".opblock-summary-method").innerText()).toLowerCase()).toBe(method);
        expect(await block.locator(".opblock-summary-path").getAttribute("data-path")).toBe(opPath);
        expect(await block.innerText()).toContain(op.summary);
      }
      // Each tag's section is on the page too.
      for (const tag of doc.tags as { name: string }[]) expect(await page.locator(`[id="operations-tag-${tag.name}"]`).count(), tag.name).toBe(1);

      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
