// What the registry sync must never take from this site: an admin's decisions (taken off the list,
// rejected), a local entry's name whatever its case, this site's own namespace, an admin's words;
// and a 'Works here' earned by one package never vouches for the next.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signedInUser, type Client, type TestApp } from "~support/app.js";
import type { FakeRegistry } from "~support/fake-registry.js";
import { SYNC_TEXT, type SyncStatus } from "~/shared/catalog-sync.js";
import { valid } from "../catalog/submissions-test-support.js";
import { COLLISION, importEntries, OWN_NAMESPACE } from "./importer.js";
import type { RegistrySync } from "./sync.js";
import { startSyncTest, type SyncTest } from "./sync-test-support.js";
import { saveCapabilities } from "../deployments/definitions/listings.js";

let up: FakeRegistry;
let t: TestApp;
let admin: Client & { id: string };
let sync: RegistrySync;
let clock = Date.parse("2026-11-01T00:00:00Z");
/** Each change upstream is later than the last one. */
const later = () => new Date((clock += 60_000)).toISOString();

let env: SyncTest;
beforeAll(async () => {
  env = await startSyncTest();
  ({ up, t, admin, sync } = env);
  up.pageSize = 50;
});
afterAll(() => env?.close());
beforeEach(() => {
  up.hostile = "none";
});

type Row = {
  id: string;
  description: string;
  version: string;
  is_approved: boolean;
  withdrawn_at: Date | null;
  check_outcome: string | null;
};
const row = async (name: string) =>
  (await t.db.database.pool.query("select * from mcp_servers where lower(registry_name) = lower($1)", [name])).rows[0] as Row | undefined;
const listed = async (q: string, extra = "") =>
  (
    (await (await t.app.request(`/api/mcp-servers?q=${encodeURIComponent(q)}&pageSize=100${extra}`)).json()) as { data: { id: string }[] }
  ).data.map((s) => s.id);
const change = (name: string, fields: Partial<FakeRegistry["servers"][number]>) =>
  Object.assign(
    up.servers.find((s) => s.name === name)!,
    fields,
    { updatedAt: later() },
  );

describe("registry sync: what it never takes", () => {
  it("an entry an admin took off the list comes back from deleted as pending; one the admin rejected stays withdrawn", async () => {
    up.servers.push(
      { name: "io.github.acme/lighthouse", description: "Lighthouse keeper", updatedAt: later() },
      { name: "io.github.acme/spammy", description: "Spam spam spam", updatedAt: later() },
    );
    expect((await sync.run())?.counts).toEqual({ created: 2 });
    expect((await admin.post("/api/admin/mcp-servers/acme-lighthouse/unapprove")).status).toBe(200);
    change("io.github.acme/lighthouse", { status: "deleted" });
    expect((await sync.run())?.counts).toEqual({ withdrawn: 1 });
    change("io.github.acme/lighthouse", { status: "active" });
    expect((await sync.run())?.counts).toEqual({ updated: 1 });
    expect(await row("io.github.acme/lighthouse")).toMatchObject({ is_approved: false, withdrawn_at: null });
    expect((await t.app.request("/server/acme-lighthouse")).status).toBe(404);
    expect(await listed("lighthouse")).toEqual([]);
    const pending = (await (await admin.get("/api/admin/mcp-servers?status=pending")).json()) as { data: { id: string }[] };
    expect(pending.data.map((s) => s.id)).toContain("acme-lighthouse");

    // Rejected: kept (whoever deployed it keeps it) but withdrawn, and the registry's next change
    // does not bring it back.
    expect((await admin.post("/api/admin/mcp-servers/acme-spammy/unapprove")).status).toBe(200);
    expect((await admin.del("/api/admin/mcp-servers/acme-spammy")).status).toBe(200);
    expect((await row("io.github.acme/spammy"))?.withdrawn_at).not.toBeNull();
    change("io.github.acme/spammy", { description: "Spam, now with more spam" });
    await sync.run();
    change("io.github.acme/spammy", { status: "deleted" });
    await sync.run();
    change("io.github.acme/spammy", { status: "active" });
    await sync.run();
    expect(await row("io.github.acme/spammy")).toMatchObject({ is_approved: false, description: "Spam spam spam" });
    expect((await row("io.github.acme/spammy"))?.withdrawn_at).not.toBeNull();
    expect(await listed("spammy")).toEqual([]);
    // Nobody sees it: no page, nothing in this site's own registry API, even asked for changes.
    expect((await t.app.request("/server/acme-spammy")).status).toBe(404);
    expect((await t.app.request("/api/mcp-servers/acme-spammy")).status).toBe(404);
    const changes = (await (await t.app.request("/v0.1/servers?updated_since=2000-01-01T00:00:00Z&limit=100")).json()) as {
      servers: { server: { name: string } }[];
    };
    expect(changes.servers.map((s) => s.server.name)).not.toContain("io.github.acme/spammy");
    const stillPending = (await (await admin.get("/api/admin/mcp-servers?status=pending")).json()) as { data: { id: string }[] };
    expect(stillPending.data.map((s) => s.id)).not.toContain("acme-spammy");
  });

  it("a file-imported entry an admin rejected stays rejected through the next import", async () => {
    const doc = { name: "io.github.acme/from-file", description: "Imported once", version: "1.0.0", packages: [] };
    expect((await importEntries(t.db.database.db, [doc])).created).toEqual(["io.github.acme/from-file"]);
    expect((await admin.post("/api/admin/mcp-servers/acme-from-file/unapprove")).status).toBe(200);
    expect((await admin.del("/api/admin/mcp-servers/acme-from-file")).status).toBe(200);
    const again = await importEntries(t.db.database.db, [{ ...doc, description: "Imported again", version: "2.0.0" }]);
    expect(again.created).toEqual([]);
    expect(await row("io.github.acme/from-file")).toMatchObject({ is_approved: false, description: "Imported once" });
    expect((await t.app.request("/server/acme-from-file")).status).toBe(404);
  });

  it("a local entry's name is its own whatever the case, by sync or by file; names in this site's namespace are never taken", async () => {
    const local = await admin.post("/api/mcp-servers", { ...valid, id: "local-clock", name: "Local Clock", description: "Ours" });
    expect(local.status, await local.clone().text()).toBe(201);
    const localName = (await t.db.database.pool.query("select registry_name from mcp_servers where id = 'local-clock'")).rows[0]
      .registry_name as string;
    const namespace = localName.split("/")[0]!;
    const before = (await t.db.database.pool.query("select count(*)::int as n from mcp_servers")).rows[0].n;
    up.servers.push(
      { name: localName.toUpperCase(), description: "Theirs, shouted", updatedAt: later() },
      { name: `${namespace}/squatted`, description: "Taken early", updatedAt: later() },
    );
    const r = await sync.run();
    expect(r?.counts).toEqual({ skipped: 2 });
    expect(r?.skipped).toEqual([
      { name: localName.toUpperCase(), reason: COLLISION },
      { name: `${namespace}/squatted`, reason: OWN_NAMESPACE },
    ]);
    expect((await t.db.database.pool.query("select count(*)::int as n from mcp_servers")).rows[0].n).toBe(before);
    // The import command keeps the same rule.
    const file = await importEntries(t.db.database.db, [
      { name: localName, description: "Theirs, from a file", version: "9.9.9", packages: [] },
    ]);
    expect(file.invalid).toEqual([{ name: localName, reason: COLLISION }]);
    expect(await row(localName)).toMatchObject({ description: "Ours" });
    // And a user's submission of that id is still free.
    const user = await signedInUser(t, "submitter@example.com");
    const mine = await user.post("/api/mcp-servers", { ...valid, id: "squatted", name: "Squatted", description: "Mine" });
    expect(mine.status, await mine.clone().text()).toBe(201);
    up.servers.splice(-2);
  });

  it("the admin page counts every skipped entry and lists the first hundred with their reasons", async () => {
    const bad = Array.from({ length: 105 }, (_, i) => ({
      name: `io.github.acme/bad-${i}`,
      raw: { name: `io.github.acme/bad-${i}` },
      updatedAt: later(),
    }));
    up.servers.push(...bad);
    const r = await sync.run();
    expect(r?.counts).toEqual({ skipped: 105 });
    const status = (await (await admin.get("/api/admin/registry-sync")).json()) as SyncStatus;
    expect(status.skipped).toHaveLength(100);
    const page = await (await admin.get("/admin/mcp-servers")).text();
    expect(page).toContain(SYNC_TEXT.skippedTitle(105));
    expect(page).toContain(SYNC_TEXT.skippedFirst(100));
    up.servers.splice(up.servers.length - bad.length);
  });

  it("names that come to the same id are numbered past the highest taken, in one read each", async () => {
    await t.db.database.pool.query(
      "insert into mcp_servers (id, name, description, category, type, source, tags, is_approved) values ('acme-beacon-7', 'Beacon seven', 'A local one', 'Featured', 'Community', 'official', '{}', true)",
    );
    up.servers.push(
      { name: "io.github.acme/beacon", updatedAt: later() },
      { name: "io.gitlab.acme/beacon", updatedAt: later() },
      { name: "com.acme/Beacon", updatedAt: later() },
    );
    expect((await sync.run())?.counts).toEqual({ created: 3 });
    const ids = async (name: string) => (await row(name))?.id;
    expect([await ids("io.github.acme/beacon"), await ids("io.gitlab.acme/beacon"), await ids("com.acme/Beacon")]).toEqual([
      "acme-beacon",
      "acme-beacon-8",
      "acme-beacon-9",
    ]);
  });

  it("local edits keep the admin's words while what the entry runs follows upstream; a new package forgets its 'Works here'", async () => {
    up.servers.push({ name: "io.github.acme/compass", description: "Points north", version: "1.0.0", updatedAt: later() });
    expect((await sync.run())?.counts).toEqual({ created: 1 });
    // The platform's check found it working (as checks.ts records it).
    await t.db.database.pool.query(
      "insert into catalog_listings (server_id, outcome, outcome_tools, checked_at) values ('acme-compass', 'works', 3, now())",
    );
    await t.db.database.pool.query("update mcp_servers set check_outcome = 'works' where id = 'acme-compass'");
    const edited = await admin.put("/api/admin/mcp-servers/acme-compass", {
      name: "Compass",
      description: "Our own words",
      category: "Content & Search",
      tags: [],
    });
    expect(edited.status).toBe(200);
    expect(await listed("compass", "&works=1")).toEqual(["acme-compass"]);

    // Upstream's words change only: the admin's stay, and so does the check.
    change("io.github.acme/compass", { description: "Points north, loudly" });
    expect((await sync.run())?.counts).toEqual({ "kept-local": 1 });
    expect(await row("io.github.acme/compass")).toMatchObject({ description: "Our own words", version: "1.0.0", check_outcome: "works" });

    // A new version while a check of the old one is under way: it runs that one now, nobody has
    // checked it, and the old one's check no longer speaks for it when it lists.
    await t.db.database.pool.query("update catalog_listings set check_status = 'checking' where server_id = 'acme-compass'");
    change("io.github.acme/compass", { version: "2.0.0" });
    expect((await sync.run())?.counts).toEqual({ "kept-local": 1 });
    expect(await row("io.github.acme/compass")).toMatchObject({ description: "Our own words", version: "2.0.0", check_outcome: null });
    expect(
      (await t.db.database.pool.query("select outcome from catalog_listings where server_id = 'acme-compass'")).rows[0].outcome,
    ).toBeNull();
    expect(await listed("compass", "&works=1")).toEqual([]);
    await saveCapabilities(
      t.db.database.db,
      { kind: "catalog", ref: "acme-compass" },
      { tools: [{ name: "old" }], prompts: [], resources: [] },
    );
    expect(await row("io.github.acme/compass")).toMatchObject({ check_outcome: null });
    expect(await listed("compass", "&works=1")).toEqual([]);
    const page = (await (await t.app.request("/api/mcp-servers/acme-compass")).json()) as { check?: unknown; version?: string };
    expect(page.check ?? null).toBeNull();
  });
});
