/**
 * The HAProxy configuration in deploy/haproxy: `haproxy -c` accepts it (and
 * refuses a damaged copy, so the check can fail); its time limits agree with
 * the server's settings; rendering for a test changes only its addresses;
 * run in front of no ready replica, its own answers are problem JSON with
 * the request's id. test/reliability/replicas-haproxy.test.ts runs it in
 * front of three real replicas. Skipped with one line without haproxy.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../settings/settings.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { REPO_ROOT, until } from "../reliability/helpers/child.js";
import { checkConfig, HAPROXY_CONFIG, haproxyAvailable, renderConfig, startHaproxy } from "../reliability/helpers/haproxy.js";

const available = haproxyAvailable("deploy/haproxy checked with haproxy -c");
const shipped = readFileSync(HAPROXY_CONFIG, "utf8");
const scratch = mkdtempSync(path.join(tmpdir(), "haproxy-cfg-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Seconds of a `timeout <name> <n>s` line. */
function timeoutSeconds(name: string): number {
  const match = new RegExp(`^\\s*timeout ${name} (\\d+)s(\\s+#.*)?$`, "m").exec(shipped);
  if (!match) throw new Error(`no timeout ${name} in ${HAPROXY_CONFIG}`);
  return Number(match[1]);
}

function settingDefault(name: string): number {
  const row = SETTINGS.find((s) => s.name === name);
  if (!row) throw new Error(`no setting ${name}`);
  return Number(row.default);
}

describe("deploy/haproxy", () => {
  it.skipIf(!available)("passes haproxy -c, and a damaged copy does not", () => {
    const result = checkConfig(HAPROXY_CONFIG);
    expect(result.output).toBe("Configuration file is valid");
    expect(result.status).toBe(0);
    const damaged = path.join(scratch, "damaged.cfg");
    writeFileSync(damaged, shipped.replace("balance roundrobin", "balance round-robin"));
    expect(checkConfig(damaged).status).not.toBe(0);
  });

  it("waits for a replica longer than its request deadline, and takes headers as long as the server does", () => {
    expect(timeoutSeconds("server") * 1000).toBeGreaterThan(settingDefault("REQUEST_DEADLINE_MS"));
    expect(timeoutSeconds("client") * 1000).toBeGreaterThan(settingDefault("REQUEST_DEADLINE_MS"));
    expect(timeoutSeconds("http-request") * 1000).toBe(settingDefault("HEADERS_TIMEOUT_MS"));
    expect(shipped).toMatch(/^\s*http-check send meth GET uri \/readyz$/m);
    expect(shipped).toMatch(/^\s*balance roundrobin$/m);
    // Within the connections a replica accepts from one address (HAProxy's).
    const maxconn = Number(/^\s*default-server .*\bmaxconn (\d+)/m.exec(shipped)?.[1]);
    expect(maxconn).toBeLessThanOrEqual(settingDefault("MAX_CONNECTIONS_PER_CLIENT"));
  });

  it("answers with error codes docs/errors.md lists", () => {
    const codes = [...shipped.matchAll(/"code":"([a-z_]+)"/g)].map((m) => m[1]!);
    expect(codes).toEqual(["request_timeout", "replica_failed", "no_replica_ready", "replica_timeout"]);
    const errors = readFileSync(path.join(REPO_ROOT, "docs/errors.md"), "utf8");
    for (const code of codes) expect(errors).toContain(`\`${code}\``);
  });

  it("is rendered for a test by changing its addresses only", () => {
    const rendered = renderConfig(shipped, "127.0.0.1:1234", ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"], true);
    const before = shipped.split("\n");
    const after = rendered.split("\n");
    expect(after).toHaveLength(before.length);
    const changed = before.map((line, i) => [line, after[i]]).filter(([x, y]) => x !== y);
    expect(changed).toEqual([
      ["    bind 0.0.0.0:8080", "    bind 127.0.0.1:1234"],
      ["    server replica1 10.0.0.11:3000", "    server replica1 127.0.0.1:1"],
      ["    server replica2 10.0.0.12:3000", "    server replica2 127.0.0.1:2"],
      ["    server replica3 10.0.0.13:3000", "    server replica3 127.0.0.1:3"],
    ]);
    // Not as root: without the lines that switch user and root directory, and nothing else.
    const unprivileged = renderConfig(shipped, "127.0.0.1:1234", ["127.0.0.1:1"], false).split("\n");
    const dropped = after.filter((line) => !unprivileged.includes(line));
    expect(dropped).toEqual(["    user haproxy", "    group haproxy", "    chroot /var/lib/haproxy", "    server replica2 127.0.0.1:2", "    server replica3 127.0.0.1:3"]);
  });

  it.skipIf(!available)("with no replica ready: 503 no_replica_ready as problem JSON, with the client's request id or HAProxy's", async () => {
    const haproxy = await startHaproxy(["127.0.0.1:1"]);
    try {
      const own = await call(haproxy.url, "/v1/stats", { headers: { "X-Request-Id": "client-chosen-2" } });
      expectProblem(own, 503, "no_replica_ready");
      expect(own.body.requestId).toBe("client-chosen-2");
      expect(own.headers.get("retry-after")).toBe("5");
      // An id the replicas would not keep (here: one that could hold an API key) is replaced by HAProxy's.
      const replaced = await call(haproxy.url, "/v1/stats", { headers: { "X-Request-Id": "tsk_0123abcd_x" } });
      expectProblem(replaced, 503, "no_replica_ready");
      expect(replaced.body.requestId).toMatch(/^[0-9A-F]+(-[0-9A-F]+){6}$/);
      await until(() => haproxy.log().includes(replaced.body.requestId as string), 5_000, "HAProxy's log line with the id");
      expect(haproxy.log()).not.toContain("tsk_0123abcd");
    } finally {
      await haproxy.stop();
    }
  });
});
