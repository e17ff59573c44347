import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clientOf, clip, outcomeOf, requestName, type CallRecord } from "../gateway/observe.js";
import { bucketOf, emptyBuckets } from "./histogram.js";
import { count, db, log, newDeployment, record, useStoreFixture } from "./store-fixture.js";
import { RequestLogWriter } from "./writer.js";

// The writer on a real PostgreSQL, with deployments inserted as rows (no processes run here;
// request-log.int.test.ts goes through the gateway): its batches, its bounds, and what a hostile
// client or server can and cannot do to them.

useStoreFixture();

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
