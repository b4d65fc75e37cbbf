/**
 * Replicas sharing PostgreSQL (DATABASE_URL) for their API keys: two server
 * processes with separate DATA_DIRs accept a key made with `npm run keys`
 * against the database, and both refuse it within 5 s of its revocation with
 * the CLI. Real PostgreSQL on 127.0.0.1:5432, a database of this file's own.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call } from "../server/helpers/http.js";
import { freshDatabase, postgresAvailable } from "../helpers/services.js";
import { until } from "./helpers/child.js";
import { keysCli as runKeys, replicaDataDir } from "./helpers/replicas.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = await postgresAvailable("replicas sharing PostgreSQL");
const dirs: string[] = [];
const servers: ServerProcess[] = [];
let database: { url: string; drop(): Promise<void> } | undefined;

beforeAll(async () => {
  if (available) database = await freshDatabase();
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

const keysCli = (args: string[]) => runKeys(database!.url, args);

async function replica(): Promise<ServerProcess> {
  const server = await startServerProcess(await replicaDataDir(dirs, "replica-pg"), { DATABASE_URL: database!.url });
  servers.push(server);
  return server;
}

describe.skipIf(!available)("replicas with DATABASE_URL: API keys", () => {
  test("a key made with the CLI works on both replicas; revoked with the CLI, both refuse it within 5 s", async () => {
    const made = await keysCli(["create", "--plan", "pro", "--name", "shared"]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const key = made.stdout.trim().split("\n").at(-1) as string;
    const keyId = /Created key ([0-9a-f]{8})/.exec(made.stdout)?.[1] as string;
    expect(key).toMatch(/^tsk_/);

    const [a, b] = await Promise.all([replica(), replica()]);
    for (const server of [a, b]) expect((await call(server.baseUrl, "/v1/stats", { key })).status).toBe(200);
    // keys.db is not used: the DATA_DIRs hold none.
    expect((await call(a.baseUrl, "/v1/stats", { key: "tsk_00000000_" + "A".repeat(43) })).status).toBe(401);

    const revoked = await keysCli(["revoke", keyId]);
    expect(revoked.code).toBe(0);
    const at = Date.now();
    for (const server of [a, b]) {
      await until(async () => (await call(server.baseUrl, "/v1/stats", { key })).status === 401, 5_000, "the revocation to reach the replica");
    }
    expect(Date.now() - at).toBeLessThan(5_000);
    const listed = await keysCli(["list"]);
    expect(listed.stdout).toMatch(new RegExp(`${keyId}\\s+shared\\s+pro\\s+\\S+\\s+-\\s+\\d{4}-`));
    expect((await keysCli(["revoke", keyId])).code).toBe(1);
  }, 120_000);
});
