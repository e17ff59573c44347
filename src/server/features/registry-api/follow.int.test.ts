// One Switchboard following another: this site's /v0.1 says what its registry said of an entry
// (deprecated) and, asked for changes, which entries it withdrew (deleted), so a site syncing from
// it learns both; a pending entry never leaves the site it was submitted to.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, type TestApp } from "~support/app.js";
import { createLogger } from "../../log.js";
import { importEntries } from "./importer.js";
import { RegistrySync } from "./sync.js";

let origin: TestApp;
let follower: TestApp;
let sync: RegistrySync;
const log = createLogger({ level: "silent", pretty: false });
const doc = (name: string) => ({
  name,
  description: `${name} server`,
  version: "1.0.0",
  packages: [{ registryType: "npm", identifier: `${name.split("/")[1]}-mcp`, version: "1.0.0", transport: { type: "stdio" } }],
});

beforeAll(async () => {
  const port = await freePort();
  origin = await createTestApp({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  const base = await origin.listen();
  follower = await createTestApp({ REGISTRY_SYNC_URL: `${base}/v0.1/servers` });
  sync = new RegistrySync({ db: follower.db.database.db, log, config: follower.config });
  const r = await importEntries(origin.db.database.db, [doc("io.github.acme/harbor"), doc("io.github.acme/ferry")]);
  expect(r.created).toHaveLength(2);
  await origin.db.database.pool.query(
    "insert into mcp_servers (id, name, description, category, type, source, tags, registry_name, is_approved) values ('secret-pending', 'Pending', 'Not reviewed', 'Featured', 'Community', 'user_submitted', '{}', 'io.github.acme/pending', false)",
  );
});
afterAll(async () => {
  await follower?.close();
  await origin?.close();
});

const followed = async (name: string) =>
  (await follower.db.database.pool.query("select * from mcp_servers where registry_name = $1", [name])).rows[0] as
    { is_approved: boolean; withdrawn_at: Date | null; upstream_status: string } | undefined;

describe("a Switchboard following another", () => {
  it("learns of the entries it deprecates and withdraws; never sees a pending one", async () => {
    const first = await sync.run();
    expect(first?.error).toBeNull();
    expect(await followed("io.github.acme/harbor")).toMatchObject({ is_approved: true, upstream_status: "active" });
    expect(await followed("io.github.acme/pending")).toBeUndefined();

    await origin.db.database.pool.query(
      "update mcp_servers set upstream_status = 'deprecated', updated_at = now() where registry_name = 'io.github.acme/ferry'",
    );
    await origin.db.database.pool.query(
      "update mcp_servers set withdrawn_at = now(), is_approved = false, updated_at = now() where registry_name = 'io.github.acme/harbor'",
    );
    await origin.db.database.pool.query("update mcp_servers set updated_at = now() where id = 'secret-pending'");
    // Asked for changes, the origin answers with the withdrawn entry as deleted, and without the pending one.
    const since = new Date(Date.now() - 60_000).toISOString();
    const changes = (await (await origin.app.request(`/v0.1/servers?updated_since=${since}`)).json()) as {
      servers: { server: { name: string }; _meta: Record<string, { status: string }> }[];
    };
    const statusOf = Object.fromEntries(changes.servers.map((s) => [s.server.name, Object.values(s._meta)[0]!.status]));
    expect(statusOf).toMatchObject({ "io.github.acme/harbor": "deleted", "io.github.acme/ferry": "deprecated" });
    expect(statusOf["io.github.acme/pending"]).toBeUndefined();
    // Without updated_since, a listing shows only what is listed.
    const all = (await (await origin.app.request("/v0.1/servers?limit=100&search=acme")).json()) as {
      servers: { server: { name: string } }[];
    };
    expect(all.servers.map((s) => s.server.name)).toEqual(["io.github.acme/ferry"]);

    const next = await sync.run();
    expect(next?.counts).toEqual({ updated: 1, withdrawn: 1 });
    expect(await followed("io.github.acme/ferry")).toMatchObject({ upstream_status: "deprecated", is_approved: true });
    expect(await followed("io.github.acme/harbor")).toMatchObject({ is_approved: false });
    expect((await followed("io.github.acme/harbor"))?.withdrawn_at).not.toBeNull();
    expect(await followed("io.github.acme/pending")).toBeUndefined();
  });
});
