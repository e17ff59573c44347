import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/support/db.js";
import type { Db } from "../../db/client.js";
import { createLogger } from "../../log.js";
import { clientOf, clip, outcomeOf, requestName, type CallRecord } from "../gateway/observe.js";
import { bucketOf, emptyBuckets } from "./histogram.js";
import { RequestLogRetention } from "./retention.js";
import { toolStats } from "./service.js";
import { RequestLogWriter } from "./writer.js";

// The writer, the retention sweep and the tool figures on a real PostgreSQL, with deployments
// inserted as rows (no processes run here; request-log.int.test.ts goes through the gateway).

let t: TestDatabase;
let db: Db;
const log = createLogger({ level: "silent", pretty: false });
const userId = randomUUID();

async function newDeployment(ref: string): Promise<string> {
  const id = randomUUID();
  await db.execute(sql`insert into deployments (id, user_id, server_kind, server_ref, source, secrets, proxy_id, status)
    values (${id}, ${userId}, 'owned', ${ref}, '{}'::jsonb, '', ${randomBytes(16).toString("hex")}, 'stopped')`);
  return id;
}

const record = (deploymentId: string, o: Partial<CallRecord> = {}): CallRecord => ({
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

const count = async (where = sql`true`) =>
  (await db.execute<{ n: number }>(sql`select count(*)::int as n from request_log where ${where}`)).rows[0]!.n;

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.database.db;
  await db.execute(sql`insert into "user" (id, name, email) values (${userId}, 'owner', 'owner@example.com')`);
});
afterAll(async () => {
  await t?.drop();
});

describe("the request log writer", () => {
  it("writes nothing while requests are answered, then every record in one transaction", async () => {
    const d = await newDeployment("owner/batch");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7 });
    for (let i = 0; i < 3000; i++)
      w.callDone(
        record(d, {
          startedAt: Date.now() - i,
          name: i % 3 === 0 ? "add" : "echo",
          outcome: i % 10 === 0 ? "tool_error" : "ok",
          serverRef: "owner/batch",
        }),
      );
    await new Promise((r) => setTimeout(r, 100));
    expect(await count(sql`deployment_id = ${d}`)).toBe(0);
    expect(w.pending).toBe(3000);
    await w.flush();
    expect(await count(sql`deployment_id = ${d}`)).toBe(3000);
    // One transaction: every row carries the same inserting transaction id.
    const xids = await db.execute<{ n: number }>(
      sql`select count(distinct xmin::text)::int as n from request_log where deployment_id = ${d}`,
    );
    expect(xids.rows[0]!.n).toBe(1);
    const row = (
      await db.execute(
        sql`select client_name, client_version, method, name, outcome, bytes_in, bytes_out, transport from request_log where deployment_id = ${d} limit 1`,
      )
    ).rows[0];
    expect(row).toMatchObject({
      client_name: "test-client",
      client_version: "2.0",
      method: "tools/call",
      bytes_in: 100,
      bytes_out: 200,
      transport: "streamable",
    });
    const stats = await db.execute<{ tool: string; calls: number; errors: number }>(
      sql`select tool, sum(calls)::int as calls, sum(errors)::int as errors from tool_stats where server_ref = 'owner/batch' group by tool order by tool`,
    );
    expect(stats.rows).toEqual([
      { tool: "add", calls: 1000, errors: 100 },
      { tool: "echo", calls: 2000, errors: 200 },
    ]);
    await w.close();
  });

  it("marks the playground's requests and leaves them out of the tool figures (the owner trying their server is not use)", async () => {
    const d = await newDeployment("owner/tried");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7 });
    for (let i = 0; i < 5; i++) w.callDone(record(d, { serverRef: "owner/tried", playground: true }));
    w.callDone(record(d, { serverRef: "owner/tried" }));
    await w.flush();
    const rows = await db.execute<{ playground: boolean; n: number }>(
      sql`select playground, count(*)::int as n from request_log where deployment_id = ${d} group by playground order by playground`,
    );
    expect(rows.rows).toEqual([
      { playground: false, n: 1 },
      { playground: true, n: 5 },
    ]);
    const stats = await db.execute<{ calls: number }>(
      sql`select sum(calls)::int as calls from tool_stats where server_ref = 'owner/tried'`,
    );
    expect(stats.rows[0]!.calls).toBe(1);
    await w.close();
  });

  it("keeps at most its bound of unwritten rows and counts what it dropped", async () => {
    const d = await newDeployment("owner/bounded");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7, maxPending: 50 });
    for (let i = 0; i < 80; i++) w.callDone(record(d, { method: "tools/list", name: undefined }));
    expect(w.pending).toBe(50);
    expect(w.dropped).toBe(30);
    await w.close();
    expect(await count(sql`deployment_id = ${d}`)).toBe(50);
  });

  it("logs nothing with REQUEST_LOG_RETENTION_DAYS=0, yet still counts tool calls", async () => {
    const d = await newDeployment("owner/off");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 0 });
    for (let i = 0; i < 5; i++) w.callDone(record(d, { serverRef: "owner/off" }));
    await w.close();
    expect(await count(sql`deployment_id = ${d}`)).toBe(0);
    const s = await db.execute<{ calls: number }>(sql`select calls from tool_stats where server_ref = 'owner/off'`);
    expect(s.rows).toEqual([{ calls: 5 }]);
  });

  it("drops the rows of a deployment stopped before the flush and writes the others", async () => {
    const gone = await newDeployment("owner/gone");
    const kept = await newDeployment("owner/kept");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7 });
    w.callDone(record(gone));
    w.callDone(record(kept));
    await db.execute(sql`delete from deployments where id = ${gone}`);
    await w.close();
    expect(await count(sql`deployment_id = ${kept}`)).toBe(1);
  });
});

describe("a hostile client or server cannot cost other tenants their log", () => {
  it("values PostgreSQL would refuse arrive cleaned; a row that still fails loses only its own deployment's batch", async () => {
    const mine = await newDeployment("owner/hostile");
    const theirs = await newDeployment("owner/innocent");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7 });
    // Through the gateway's own helpers: NUL in names and client info, an error code that is no integer.
    const client = clientOf({ clientInfo: { name: "evil\u0000client", version: "1\u0000" } });
    w.callDone(
      record(mine, {
        client,
        name: requestName("tools/call", { name: "to\u0000ol" }),
        ...outcomeOf({ error: { code: 3.5, message: "x" } }),
      }),
    );
    w.callDone(record(theirs, { method: clip("tools/\u0000list", 100) }));
    await w.flush();
    expect(await count(sql`deployment_id = ${theirs} and method = 'tools/list'`)).toBe(1);
    expect(
      (await db.execute(sql`select client_name, client_version, name, outcome, error_code from request_log where deployment_id = ${mine}`))
        .rows,
    ).toEqual([{ client_name: "evilclient", client_version: "1", name: "tool", outcome: "error", error_code: null }]);
    // A row that would still fail the batch (here an error code out of range, set by hand): the
    // whole batch fails twice, then every other deployment's rows are written on their own.
    w.callDone(record(mine, { outcome: "error", errorCode: 2 ** 40 }));
    w.callDone(record(theirs, { name: "second" }));
    await w.flush(); // fails, kept for one more try
    await w.flush(); // fails again: piece by piece
    expect(await count(sql`deployment_id = ${theirs} and name = 'second'`)).toBe(1);
    expect(await count(sql`deployment_id = ${mine}`)).toBe(1);
    await w.close();
  });

  it("the public error rate counts failures, not callers' mistakes or cancellations", async () => {
    const d = await newDeployment("owner/rate");
    const w = new RequestLogWriter({ db, log, flushMs: 60_000, retentionDays: 7 });
    const spoiled = [-32600, -32601, -32602, -32001].map((errorCode) => ({ outcome: "error" as const, errorCode, durationMs: 0.1 }));
    const calls: Partial<CallRecord>[] = [
      { outcome: "ok" },
      { outcome: "tool_error" },
      { outcome: "error", errorCode: -32000 },
      ...spoiled,
      { outcome: "cancelled", durationMs: 0.1 },
    ];
    for (const c of calls) w.callDone(record(d, { serverRef: "owner/rate", ...c }));
    await w.close();
    // Neither in the calls, the errors nor the latencies: callers cannot push the figures either way.
    expect((await db.execute(sql`select calls, errors, buckets from tool_stats where server_ref = 'owner/rate'`)).rows).toEqual([
      {
        calls: 3,
        errors: 2,
        buckets: (() => {
          const b = emptyBuckets();
          b[bucketOf(3)] = 3;
          return b;
        })(),
      },
    ]);
    expect(await count(sql`deployment_id = ${d} and outcome = 'cancelled'`)).toBe(1);
  });
});

describe("retention", () => {
  it("deletes rows older than the retention and, per deployment, all but the newest REQUEST_LOG_MAX_ROWS", async () => {
    await db.execute(sql`delete from request_log`);
    const busy = await newDeployment("owner/busy");
    const quiet = await newDeployment("owner/quiet");
    // 25 recent rows a second apart (newest first by 'at'), and 5 from 8 days ago.
    await db.execute(sql`insert into request_log (deployment_id, at, method, duration_ms, outcome, bytes_in, bytes_out, transport)
      select ${busy}, now() - make_interval(secs => g), 'm' || g, 1, 'ok', 1, 1, 'streamable' from generate_series(1, 25) g`);
    await db.execute(sql`insert into request_log (deployment_id, at, method, duration_ms, outcome, bytes_in, bytes_out, transport)
      select d, now() - interval '8 days' - make_interval(secs => g), 'old', 1, 'ok', 1, 1, 'sse' from generate_series(1, 5) g, unnest(array[${busy}, ${quiet}]) d`);
    await db.execute(sql`insert into request_log (deployment_id, at, method, duration_ms, outcome, bytes_in, bytes_out, transport)
      select ${quiet}, now() - make_interval(secs => g), 'q', 1, 'ok', 1, 1, 'streamable' from generate_series(1, 3) g`);
    const hourAgo = (h: number) => sql`date_trunc('hour', now()) - make_interval(hours => ${h})`;
    await db.execute(
      sql`insert into tool_stats values ('owned', 'owner/busy', 'echo', ${hourAgo(50)}, 1, 0, '{1}'), ('owned', 'owner/busy', 'echo', ${hourAgo(40)}, 1, 0, '{1}')`,
    );

    const sweep = await new RequestLogRetention({ db, log, retentionDays: 7, maxRows: 10 }).sweep();
    expect(sweep).toMatchObject({ old: 10, beyondMax: 15 });
    const left = await db.execute<{ method: string }>(sql`select method from request_log where deployment_id = ${busy} order by at desc`);
    expect(left.rows.map((r) => r.method)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i + 1}`));
    expect(await count(sql`deployment_id = ${quiet}`)).toBe(3);
    const stats = await db.execute(sql`select hour from tool_stats where server_ref = 'owner/busy'`);
    expect(stats.rows).toHaveLength(1);
  });

  it("clears the whole log when it is turned off", async () => {
    const d = await newDeployment("owner/was-on");
    await db.execute(
      sql`insert into request_log (deployment_id, at, method, duration_ms, outcome, bytes_in, bytes_out, transport) values (${d}, now(), 'x', 1, 'ok', 1, 1, 'sse')`,
    );
    await new RequestLogRetention({ db, log, retentionDays: 0, maxRows: 10 }).sweep();
    expect(await count()).toBe(0);
  });
});

describe("tool figures", () => {
  it("adds hours and deployments up, leaves out older than 24 h and tools the server never listed", async () => {
    await db.execute(sql`insert into mcp_servers (id, name, description, category, type, source, tags, is_approved)
      values ('figures', 'figures', 'd', 'Featured', 'Reference', 'official', '{}', true) on conflict do nothing`);
    await db.execute(sql`insert into catalog_listings (server_id, approved, approved_at)
      values ('figures', ${JSON.stringify({ tools: [{ name: "search" }, { name: "idle" }], prompts: [], resources: [] })}::jsonb, now())`);
    const fast = emptyBuckets();
    fast[bucketOf(15)] = 10;
    const slow = emptyBuckets();
    slow[bucketOf(40)] = 10;
    const hourAgo = (h: number) => sql`date_trunc('hour', now()) - make_interval(hours => ${h})`;
    const arr = (b: number[]) => `{${b.join(",")}}`;
    await db.execute(sql`insert into tool_stats (server_kind, server_ref, tool, hour, calls, errors, buckets) values
      ('catalog', 'figures', 'search', ${hourAgo(0)}, 10, 1, ${arr(fast)}::int[]),
      ('catalog', 'figures', 'search', ${hourAgo(1)}, 10, 0, ${arr(slow)}::int[]),
      ('catalog', 'figures', 'search', ${hourAgo(30)}, 100, 100, ${arr(slow)}::int[]),
      ('catalog', 'figures', '<b>made-up</b>', ${hourAgo(0)}, 7, 7, ${arr(fast)}::int[])`);
    const s = await toolStats(db, { kind: "catalog", ref: "figures" });
    // Ranks 10 and 19 of 20: the top of (10, 20] ms, then 9/10 of the way through (20, 50] ms.
    expect(s).toEqual([{ name: "search", calls: 20, error_rate: 0.05, p50_ms: 20, p95_ms: 47 }]);
  });

  it("weighs each user once: one user failing every call, or calling slowly, does not move what the others see", async () => {
    await db.execute(sql`insert into mcp_servers (id, name, description, category, type, source, tags, is_approved)
      values ('weighed', 'weighed', 'd', 'Featured', 'Reference', 'official', '{}', true)`);
    await db.execute(
      sql`insert into catalog_listings (server_id, approved, approved_at) values ('weighed', ${JSON.stringify({ tools: [{ name: "t" }], prompts: [], resources: [] })}::jsonb, now())`,
    );
    const at = (ms: number, n: number) => {
      const b = emptyBuckets();
      b[bucketOf(ms)] = n;
      return `{${b.join(",")}}`;
    };
    const row = (user: string, calls: number, errors: number, ms: number) =>
      sql`('catalog', 'weighed', 't', date_trunc('hour', now()), ${user}, ${calls}, ${errors}, ${at(ms, calls)}::int[])`;
    await db.execute(
      sql`insert into tool_stats (server_kind, server_ref, tool, hour, user_id, calls, errors, buckets) values ${sql.join([row("alice", 10, 0, 15), row("bob", 10, 0, 15)], sql`, `)}`,
    );
    const before = (await toolStats(db, { kind: "catalog", ref: "weighed" }))[0]!;
    // Mallory: a wrong key (every call fails), 1,000 slow calls.
    await db.execute(
      sql`insert into tool_stats (server_kind, server_ref, tool, hour, user_id, calls, errors, buckets) values ${row("mallory", 1000, 1000, 20_000)}`,
    );
    const after = (await toolStats(db, { kind: "catalog", ref: "weighed" }))[0]!;
    expect(after.calls).toBe(1020);
    expect(after.error_rate).toBe(before.error_rate);
    expect(after.p50_ms).toBe(before.p50_ms);
    expect(after.p95_ms).toBe(before.p95_ms);
  });
});
