import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { RequestLogRetention } from "./retention.js";
import { count, db, log, newDeployment, useStoreFixture } from "./store-fixture.js";

// The retention sweep on a real PostgreSQL, with rows inserted by hand: what it keeps of the
// request log and of the tool figures.

useStoreFixture();

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
