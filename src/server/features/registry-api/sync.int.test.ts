// The living catalogue: the registry sync against a stand-in upstream registry (first and
// incremental runs, deprecated and deleted versions, an admin's local edits, hostile pages, and
// two processes at once).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, client, type Client, type TestApp } from "~support/app.js";
import { EVERYTHING, waitForStatus } from "~support/deployments.js";
import type { FakeRegistry } from "~support/fake-registry.js";
import { SYNC_TEXT, type SyncStatus } from "~/shared/catalog-sync.js";
import { COLLISION } from "./importer.js";
import { valid } from "../catalog/submissions-test-support.js";
import { RegistrySync } from "./sync.js";
import { silentLog, startSyncTest, type SyncTest } from "./sync-test-support.js";

let up: FakeRegistry;
let t: TestApp;
let admin: Client & { id: string };
let sync: RegistrySync;
let env: SyncTest;
const METRICS = "metrics-token-for-sync-tests";
const log = silentLog;

beforeAll(async () => {
  env = await startSyncTest({
    REGISTRY_SYNC_TIMEOUT_MS: "1000",
    REGISTRY_SYNC_MAX_PAGE_BYTES: String(256 * 1024),
    METRICS_TOKEN: METRICS,
  });
  ({ up, t, admin, sync } = env);
});
afterAll(() => env?.close());
beforeEach(() => {
  up.hostile = "none";
  up.requests.length = 0;
});

const row = async (name: string) =>
  (await t.db.database.pool.query("select * from mcp_servers where registry_name = $1", [name])).rows[0] as
    | { id: string; description: string; is_approved: boolean; withdrawn_at: Date | null; upstream_status: string; local_edits: boolean }
    | undefined;
const listed = async (q: string) =>
  ((await (await t.app.request(`/api/mcp-servers?q=${encodeURIComponent(q)}&pageSize=100`)).json()) as { data: { id: string }[] }).data.map(
    (s) => s.id,
  );
const status = async () => (await (await admin.get("/api/admin/registry-sync")).json()) as SyncStatus;

describe("registry sync", () => {
  it("first run: every latest server is created, listed and counted; the admin sees the run", async () => {
    up.servers.push(
      { name: "io.github.acme/weather", description: "Forecasts for anywhere", updatedAt: "2026-11-01T10:00:00Z" },
      { name: "io.github.acme/tides", description: "Tide tables", updatedAt: "2026-11-01T11:00:00Z" },
      { name: "io.github.acme/tides", version: "0.9.0", description: "Old tides", updatedAt: "2026-10-01T11:00:00Z", isLatest: false },
      { name: "io.github.other/moon", description: "Moon phases", updatedAt: "2026-11-01T12:00:00Z" },
    );
    const r = await sync.run();
    expect(r?.error).toBeNull();
    expect(r?.counts).toEqual({ created: 3, older: 1 });
    expect(r?.pages).toBe(2);
    // Page 2 followed page 1's cursor; no updated_since yet.
    expect(up.requests.map((q) => [q.get("cursor"), q.get("updated_since")])).toEqual([
      [null, null],
      ["2", null],
    ]);
    expect(await listed("tides")).toEqual(["acme-tides"]);
    expect((await row("io.github.acme/tides"))?.description).toBe("Tide tables");
    const s = await status();
    expect(s).toMatchObject({ enabled: true, upstream: up.url, status: "ok", error: null, counts: { created: 3, older: 1 }, pages: 2 });
    expect(s.watermark).toBe("2026-11-01T12:00:00.000Z");
    expect(Date.now() - Date.parse(s.last_ok_at!)).toBeLessThan(60_000);
  });

  it("next run asks for changes since the last one: a changed server is updated, a new one created, the rest untouched", async () => {
    up.servers.find((s) => s.name === "io.github.acme/weather")!.description = "Forecasts and alerts";
    up.servers.find((s) => s.name === "io.github.acme/weather")!.updatedAt = "2026-11-02T09:00:00Z";
    up.servers.push({ name: "io.github.acme/stars", description: "Star charts", updatedAt: "2026-11-02T10:00:00Z" });
    const r = await sync.run();
    expect(r?.counts).toEqual({ updated: 1, created: 1 });
    expect(up.requests[0]!.get("updated_since")).toBe("2026-11-01T12:00:00.000Z");
    expect((await row("io.github.acme/weather"))?.description).toBe("Forecasts and alerts");
    // Nothing changed since: nothing to do.
    expect((await sync.run())?.counts).toEqual({});
  });

  it("a deprecated version is shown as such; a deleted server is unlisted but kept, and its page says it was withdrawn", async () => {
    Object.assign(
      up.servers.find((s) => s.name === "io.github.acme/tides")!,
      { status: "deprecated", updatedAt: "2026-11-03T09:00:00Z" },
    );
    Object.assign(
      up.servers.find((s) => s.name === "io.github.other/moon")!,
      { status: "deleted", updatedAt: "2026-11-03T10:00:00Z" },
    );
    const r = await sync.run();
    expect(r?.counts).toEqual({ updated: 1, withdrawn: 1 });
    const tides = (await (await t.app.request("/api/mcp-servers/acme-tides")).json()) as { deprecated?: boolean };
    expect(tides.deprecated).toBe(true);
    expect(await (await t.app.request("/server/acme-tides")).text()).toContain(SYNC_TEXT.deprecated);

    const moon = await row("io.github.other/moon");
    expect(moon).toMatchObject({ is_approved: false, upstream_status: "deleted" });
    expect(moon?.withdrawn_at).not.toBeNull();
    expect(await listed("moon")).toEqual([]);
    expect((await t.app.request("/v0.1/servers?search=moon")).ok).toBe(true);
    expect(((await (await t.app.request("/v0.1/servers?search=moon")).json()) as { servers: unknown[] }).servers).toEqual([]);
    const page = await client(t.app).get("/server/other-moon");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(SYNC_TEXT.withdrawn);
    // Not something to review or reject: the admin's lists leave it out, and a reject finds nothing.
    const pending = (await (await admin.get("/api/admin/mcp-servers?status=pending")).json()) as { data: { id: string }[] };
    expect(pending.data.map((s) => s.id)).not.toContain("other-moon");
    expect((await admin.del("/api/admin/mcp-servers/other-moon")).status).toBe(409);
    expect(await row("io.github.other/moon")).toBeDefined();

    // Back upstream: listed again.
    Object.assign(
      up.servers.find((s) => s.name === "io.github.other/moon")!,
      { status: "active", updatedAt: "2026-11-04T10:00:00Z" },
    );
    expect((await sync.run())?.counts).toEqual({ updated: 1 });
    expect(await listed("moon")).toEqual(["other-moon"]);
  });

  it("a deployment of an entry its registry then deletes keeps running, and My deployments says the entry was withdrawn", async () => {
    up.servers.push({
      name: "io.github.acme/everything",
      description: "Everything, from npm",
      updatedAt: "2026-11-04T11:00:00Z",
      packages: [{ registryType: "npm", identifier: EVERYTHING, version: "latest", transport: { type: "stdio" } }],
    });
    expect((await sync.run())?.counts).toEqual({ created: 1 });
    const user = await signedInUser(t, "deployer@example.com");
    const d = await user.post("/api/deploy/acme-everything", {});
    expect(d.status, await d.clone().text()).toBe(202);
    await waitForStatus(user, "acme-everything", "running");
    Object.assign(
      up.servers.find((s) => s.name === "io.github.acme/everything")!,
      { status: "deleted", updatedAt: "2026-11-04T12:00:00Z" },
    );
    expect((await sync.run())?.counts).toEqual({ withdrawn: 1 });
    expect((await waitForStatus(user, "acme-everything", "running")).status).toBe("running");
    expect(await (await user.get("/deployments")).text()).toContain(SYNC_TEXT.withdrawnDeployment);
    // Nobody starts a new one of it.
    const other = await signedInUser(t, "latecomer@example.com");
    expect((await other.post("/api/deploy/acme-everything", {})).status).toBe(404);
    expect((await user.post(`/api/deployments/${(await waitForStatus(user, "acme-everything", "running")).id}/restart`)).status).toBe(202);
    await waitForStatus(user, "acme-everything", "running");
    await user.del(`/api/deployments/${(await waitForStatus(user, "acme-everything", "running")).id}`);
  }, 180_000);

  it("an admin's local edits are kept through later syncs until the admin takes upstream again", async () => {
    const edited = await admin.put("/api/admin/mcp-servers/acme-weather", {
      name: "Weather (curated)",
      description: "Our own words",
      category: "Content & Search",
      tags: ["weather"],
    });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect(await edited.json()).toMatchObject({ name: "Weather (curated)", local_edits: true, synced: true });
    Object.assign(
      up.servers.find((s) => s.name === "io.github.acme/weather")!,
      { description: "Upstream words", updatedAt: "2026-11-05T09:00:00Z" },
    );
    expect((await sync.run())?.counts).toEqual({ "kept-local": 1 });
    expect((await row("io.github.acme/weather"))?.description).toBe("Our own words");

    const taken = await admin.post("/api/admin/mcp-servers/acme-weather/take-upstream");
    expect(taken.status).toBe(200);
    expect(await taken.json()).toMatchObject({ description: "Upstream words", local_edits: false });
    // A bad edit is refused at its field and changes nothing.
    const bad = await admin.put("/api/admin/mcp-servers/acme-weather", { name: "", description: "x", category: "Nope", tags: [] });
    expect(bad.status).toBe(400);
    expect((await row("io.github.acme/weather"))?.description).toBe("Upstream words");
    // Not for anyone else.
    const user = await signedInUser(t, "someone@example.com");
    expect(
      (await user.put("/api/admin/mcp-servers/acme-weather", { name: "Mine", description: "Mine", category: "Featured", tags: [] })).status,
    ).toBe(403);
    expect((await user.post("/api/admin/mcp-servers/acme-weather/take-upstream")).status).toBe(403);
    expect((await user.post("/api/admin/registry-sync")).status).toBe(403);
    expect((await client(t.app).get("/api/admin/registry-sync")).status).toBe(401);
  });

  it("skips what it cannot take, with the reason, and writes the rest whole: invalid entries, and a name that belongs to a local entry", async () => {
    // A local entry (an admin's submission) already holds the name the upstream sends.
    const local = await admin.post("/api/mcp-servers", { ...valid, id: "local-clock", name: "Local Clock", description: "Ours" });
    expect(local.status, await local.clone().text()).toBe(201);
    const localName = (await t.db.database.pool.query("select registry_name from mcp_servers where id = 'local-clock'")).rows[0]
      .registry_name;
    up.servers.push(
      { name: localName, description: "Theirs", updatedAt: "2026-11-06T09:00:00Z" },
      { name: "not a reverse dns name", raw: { name: "not a reverse dns name", version: "1.0.0" }, updatedAt: "2026-11-06T09:01:00Z" },
      { name: "io.github.acme/noversion", raw: { name: "io.github.acme/noversion" }, updatedAt: "2026-11-06T09:02:00Z" },
      { name: "io.github.acme/comets", description: "Comet tracker", updatedAt: "2026-11-06T09:03:00Z" },
    );
    const r = await sync.run();
    expect(r?.error).toBeNull();
    expect(r?.counts).toEqual({ skipped: 3, created: 1 });
    expect(r?.skipped).toEqual([
      { name: localName, reason: COLLISION },
      { name: "not a reverse dns name", reason: expect.stringContaining("name") },
      { name: "io.github.acme/noversion", reason: expect.stringContaining("version") },
    ]);
    expect((await row(localName))?.description).toBe("Ours");
    expect(await row("io.github.acme/comets")).toBeDefined();
    expect((await status()).skipped).toHaveLength(3);
  });

  it.each([
    ["huge", /Page 1: the page is larger than 256 KB/],
    ["loop", /Page 2: the registry sent a (cursor|page) it had sent before \(a loop\)/],
    ["crowded", /Page 1: the page has 150 entries, more than the 100 asked for/],
    ["nonce", /Page 2: the registry sent a page it had sent before/],
    ["slow", /Page 1: the registry did not answer within 1 s/],
    ["trickle", /Page 1: the registry did not answer within 1 s/],
    ["not-json", /Page 1: the page is not JSON/],
    ["error", /Page 1: the registry answered HTTP 500/],
  ] as const)(
    "a hostile upstream (%s) stops the run with its reason; the watermark stays, so the next run asks again",
    async (mode, reason) => {
      up.servers.push({
        name: `io.github.acme/${mode}-victim`,
        updatedAt: new Date(Date.parse("2026-11-07T09:00:00Z") + up.servers.length * 60_000).toISOString(),
      });
      const before = (await status()).watermark;
      up.hostile = mode;
      const started = Date.now();
      const r = await sync.run();
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r?.error).toMatch(reason);
      const s = await status();
      expect(s).toMatchObject({ status: "failed", watermark: before });
      expect(s.error).toMatch(reason);
      up.hostile = "none";
      const again = await sync.run();
      expect(again?.error).toBeNull();
      expect(await row(`io.github.acme/${mode}-victim`)).toBeDefined();
    },
  );

  it("an upstream date in the future never hides later changes: the next run asks from no later than this one's start", async () => {
    const future = {
      name: "io.github.acme/from-the-future",
      raw: { name: "io.github.acme/from-the-future" },
      updatedAt: "2999-01-01T00:00:00Z",
    };
    up.servers.push(future);
    const before = (await status()).watermark;
    const after = { name: "io.github.acme/after-the-future", updatedAt: new Date(Date.now() + 60_000).toISOString() };
    try {
      const started = Date.now();
      const r = await sync.run();
      expect(r?.counts).toEqual({ skipped: 1 });
      expect(Date.parse((await status()).watermark!)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse((await status()).watermark!)).toBeGreaterThanOrEqual(started - 1000);
      up.servers.push(after);
      expect((await sync.run())?.counts).toEqual({ skipped: 1, created: 1 });
      expect(await row("io.github.acme/after-the-future")).toBeDefined();
    } finally {
      // The other tests' upstream dates are fixed ones in the past: they go on from where they were.
      up.servers.splice(up.servers.indexOf(future), 1);
      after.updatedAt = "2026-11-01T00:00:00Z";
      await t.db.database.pool.query("update registry_sync set watermark = $1", [before]);
    }
  });

  it("two processes running it at once sync once", async () => {
    const other = await createTestApp({ REGISTRY_SYNC_URL: up.url }, { sameDatabaseAs: t });
    try {
      up.servers.push({ name: "io.github.acme/twice", updatedAt: "2026-11-08T09:00:00Z" });
      const second = new RegistrySync({ db: other.db.database.db, log, config: other.config });
      // Slow answers keep the first run under way while the other tries: truly at once.
      up.delayMs = 500;
      const results = await Promise.all([sync.run(), second.run()]).finally(() => (up.delayMs = 0));
      expect(results.filter((r) => r === null)).toHaveLength(1);
      expect(results.find((r) => r)?.counts).toEqual({ created: 1 });
      expect(up.requests).toHaveLength(1);
      expect(
        (await t.db.database.pool.query("select count(*)::int as n from mcp_servers where registry_name = 'io.github.acme/twice'")).rows[0]
          .n,
      ).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("a run under way elsewhere blocks 'Sync now' (409); one silent for 30 minutes died with its process and is taken over", async () => {
    await t.db.database.pool.query("update registry_sync set status = 'running', beat_at = now() where upstream = $1", [up.url]);
    expect(await sync.run()).toBeNull();
    const busy = await admin.post("/api/admin/registry-sync");
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: string }).error).toBe(SYNC_TEXT.already);
    await t.db.database.pool.query("update registry_sync set beat_at = now() - interval '31 minutes' where upstream = $1", [up.url]);
    expect((await sync.run())?.error).toBeNull();
    expect((await status()).status).toBe("ok");
  });

  it("checks new synced entries at the configured rate, oldest first, one per interval across processes; withdrawn or checked ones are left alone", async () => {
    const started: string[] = [];
    const config = { ...t.config, REGISTRY_SYNC_CHECKS_PER_HOUR: 1 };
    const a = new RegistrySync({ db: t.db.database.db, log, config, check: async (id) => void started.push(id) });
    const other = await createTestApp({ REGISTRY_SYNC_URL: up.url }, { sameDatabaseAs: t });
    try {
      const b = new RegistrySync({ db: other.db.database.db, log, config, check: async (id) => void started.push(id) });
      const oldest = (
        await t.db.database.pool.query(
          "select id from mcp_servers where upstream is not null and is_approved and withdrawn_at is null order by created_at, id limit 1",
        )
      ).rows[0].id;
      const [x, y] = await Promise.all([a.checkNext(3_600_000), b.checkNext(3_600_000)]);
      expect([x, y].filter(Boolean)).toEqual([oldest]);
      expect(started).toEqual([oldest]);
      // The hour is spent: nothing more until the next one.
      expect(await a.checkNext(3_600_000)).toBeUndefined();
      // Checked entries are not picked again; the next interval takes the next one.
      await t.db.database.pool.query("update mcp_servers set check_outcome = 'works' where id = $1", [oldest]);
      await t.db.database.pool.query(
        "update cluster_jobs set last_run_at = now() - interval '2 hours' where name = 'registry-sync-checks'",
      );
      const next = await b.checkNext(3_600_000);
      expect(next).toBeDefined();
      expect(next).not.toBe(oldest);
      expect(
        (await t.db.database.pool.query("select withdrawn_at from mcp_servers where id = $1", [next])).rows[0].withdrawn_at,
      ).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("'Sync now' runs it in the background and the admin page shows the run", async () => {
    up.servers.push({ name: "io.github.acme/now", updatedAt: "2026-11-09T09:00:00Z" });
    const r = await admin.post("/api/admin/registry-sync");
    expect(r.status).toBe(202);
    let s = await status();
    for (let i = 0; i < 50 && s.status === "running"; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      s = await status();
    }
    expect(s).toMatchObject({ status: "ok", counts: { created: 1 } });
    const page = await (await admin.get("/admin/mcp-servers")).text();
    expect(page).toContain(SYNC_TEXT.title);
    expect(page).toContain(SYNC_TEXT.status.ok!);
    // And in metrics, for alerting on a sync that stopped working.
    const metrics = await (await t.app.request("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })).text();
    expect(metrics).toMatch(/^switchboard_registry_sync_entries\{action="created"\} 1$/m);
    expect(metrics).toMatch(/^switchboard_registry_sync_failing 0$/m);
    expect(metrics).toMatch(/^switchboard_registry_sync_running 0$/m);
    expect(metrics).toMatch(/^switchboard_registry_sync_pages 1$/m);
    const last = Number(/^switchboard_registry_sync_last_success_timestamp_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(Date.now() / 1000 - last).toBeLessThan(60);
  });
});
