// The set-up the request log's store tests share (writer, retention and tool-figures .int.test.ts):
// a test database with one user, deployments inserted as rows, call records and a row count.
import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import type { Db } from "../../db/client.js";
import { createLogger } from "../../log.js";
import type { CallRecord } from "../gateway/observe.js";

// Live bindings: a test file reads them after useStoreFixture's beforeAll has set them.
let t: TestDatabase;
export let db: Db;
export const log = createLogger({ level: "silent", pretty: false });
export const userId = randomUUID();

export async function newDeployment(ref: string): Promise<string> {
  const id = randomUUID();
  await db.execute(sql`insert into deployments (id, user_id, server_kind, server_ref, source, secrets, proxy_id, status)
    values (${id}, ${userId}, 'owned', ${ref}, '{}'::jsonb, '', ${randomBytes(16).toString("hex")}, 'stopped')`);
  return id;
}

export const record = (deploymentId: string, o: Partial<CallRecord> = {}): CallRecord => ({
  startedAt: Date.now(),
  durationMs: 3,
  deploymentId,
  serverKind: "owned",
  serverRef: "owner/server",
  userId,
  client: { name: "test-client", version: "2.0" },
  method: "tools/call",
  name: "echo",
  outcome: "ok",
  bytesIn: 100,
  bytesOut: 200,
  transport: "streamable",
  ...o,
});

export const count = async (where = sql`true`) =>
  (await db.execute<{ n: number }>(sql`select count(*)::int as n from request_log where ${where}`)).rows[0]!.n;

/** Creates the test database before the file's tests and drops it after them. */
export function useStoreFixture() {
  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.database.db;
    await db.execute(sql`insert into "user" (id, name, email) values (${userId}, 'owner', 'owner@example.com')`);
  });
  afterAll(async () => {
    await t?.drop();
  });
}
