// 'Works here' (issue 36): an admin's check runs a catalogue entry under the platform's account
// with placeholder keys and records what happened: it works (with its tool count), it needs real
// keys, it fails (why), or it cannot run here (why); a remote entry gets a liveness check through
// the guarded outbound client. The server page shows it with its date and the directory filters on it.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKS_TEXT, type AdminServer, type CatalogServer, type CheckOutcome } from "~/shared/catalog.js";
import { client, createTestApp, freePort, signedInUser, type Client, type TestApp } from "../support/app.js";
import { EVERYTHING, waitForStatus } from "../support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { startHostileUpstream, type HostileUpstream } from "../support/remote-upstreams.js";
import { until } from "../support/wait.js";
import { longDate } from "~/web/lib/dates.js";

let t: TestApp;
let repo: FixtureRepo;
let broken: FixtureRepo;
let hostile: HostileUpstream;
let admin: Client & { id: string };
const SCRIPT = "<script>alert('from stderr')</script>";

async function entry(id: string, o: { repo?: string; url?: string; npx?: string; keys?: string[] }) {
  const keys = o.keys?.map((k) => ({ key: k, env_var: k, description: "A key" })) ?? null;
  await t.db.database.db.execute(sql`
    insert into mcp_servers (id, name, description, category, type, source, tags, repository_url, url, npx_command, required_keys, is_approved)
    values (${id}, ${`Check ${id}`}, ${"Checked " + id}, 'Development Tools', 'Community', 'imported', array['checked'],
      ${o.repo ?? null}, ${o.url ?? null}, ${o.npx ?? null}, ${keys === null ? null : JSON.stringify(keys)}::jsonb, true)`);
}

beforeAll(async () => {
  [repo, broken, hostile] = await Promise.all([
    createFixtureRepo(),
    // A server that cannot start at all, whatever keys it gets, and says so with markup.
    createFixtureRepo({
      files: { "server.js": `process.stderr.write(${JSON.stringify(`broken on purpose ${SCRIPT}\n`)}); process.exit(2);\n` },
    }),
    startHostileUpstream(),
  ]);
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ADMIN_EMAILS: "admin@example.com",
    DEPLOY_START_TIMEOUT_MS: "20000",
    RESTART_BACKOFF_MS: "200",
    // The operator's exception for the stand-in remote server on this machine.
    SANDBOX_EGRESS_ALLOW: "127.0.0.1",
    // The plan sweep runs often: it must leave the platform's checks alone.
    BILLING_SWEEP_MS: "200",
  });
  await t.listen();
  admin = await signedInUser(t, "admin@example.com");
  await entry("runs", { repo: repo.url });
  // Exits at once when this key is set (the fixture's FIXTURE_EXIT_ON_START): placeholders stop it.
  await entry("keyed", { repo: repo.url, keys: ["FIXTURE_EXIT_ON_START"] });
  await entry("broken", { repo: broken.url });
  await entry("nowhere", {});
  await entry("unchecked", { repo: repo.url });
  await entry("npm-everything", { npx: `npx -y ${EVERYTHING}` });
  await entry("runs-too", { repo: repo.url });
  await entry("remote-open", { url: hostile.url("/plain/mcp") });
  await entry("remote-locked", { url: hostile.url("/bearer/mcp") });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([repo?.cleanup(), broken?.cleanup(), hostile?.close()]);
});

const api = async (id: string) => (await (await client(t.app).get(`/api/mcp-servers/${id}`)).json()) as CatalogServer;
const page = async (id: string) => (await client(t.app).get(`/server/${id}`)).text();
const html = (s: string) => s.replace(/&/g, "&amp;").replace(/'/g, "&#x27;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

async function check(id: string, want: CheckOutcome) {
  const r = await admin.post(`/api/admin/mcp-servers/${id}/check`);
  expect(r.status, await r.clone().text()).toBe(202);
  return until(
    () => api(id),
    (s) => s.check_outcome === want,
    90_000,
    250,
  );
}

describe("works here", () => {
  it("a server that starts and lists its tools works here: the count and date on its page, the badge and filter in the directory, its tools only once approved", async () => {
    await check("runs", "works");
    const listed = ((await (await admin.get("/api/admin/mcp-servers?status=approved")).json()) as { data: AdminServer[] }).data.find(
      (s) => s.id === "runs",
    )!;
    const n = listed.tools_changed!.added.length;
    expect(n).toBeGreaterThan(1);
    const body = await page("runs");
    expect(body).toContain(html(WORKS_TEXT.works(n)));
    // With the check's date, as the page writes dates.
    const checkedAt = (await t.db.database.pool.query("select checked_at from catalog_listings where server_id = 'runs'")).rows[0]
      .checked_at;
    expect(body).toContain(html(WORKS_TEXT.checkedOn(longDate(new Date(checkedAt).toISOString()))));
    expect(body).toContain(WORKS_TEXT.toolsPending);
    // The check's deployment is gone once it listed.
    await until(
      async () => (await t.db.database.pool.query("select id from deployments where user_id = 'switchboard-platform'")).rowCount,
      (c) => c === 0,
      30_000,
    );
    const filtered = (await (await client(t.app).get("/api/mcp-servers?works=1&pageSize=100")).json()) as { data: CatalogServer[] };
    expect(filtered.data.map((s) => s.id)).toEqual(["runs"]);
    const directory = await (await client(t.app).get("/?works=1&q=checked")).text();
    expect(directory).toContain("Check runs");
    expect(directory).not.toContain("Check keyed");
  }, 120_000);

  it("an npm entry works here too, and two checks at once both finish: the plan sweep leaves the platform's account alone", async () => {
    await Promise.all([check("npm-everything", "works"), check("runs-too", "works")]);
    const tools = async (id: string) =>
      (await t.db.database.pool.query("select outcome_tools from catalog_listings where server_id = $1", [id])).rows[0]
        .outcome_tools as number;
    // The reference server lists its tools (more than a handful), and the page says how many.
    expect(await tools("npm-everything")).toBeGreaterThan(5);
    expect(await tools("runs-too")).toBeGreaterThan(1);
    expect(await page("npm-everything")).toContain(html(WORKS_TEXT.works(await tools("npm-everything"))));
    expect(
      (await t.db.database.pool.query("select 1 from deployments where user_id = 'switchboard-platform' and status = 'sleeping'")).rowCount,
    ).toBe(0);
  }, 200_000);

  it("one that stops with placeholder keys needs real keys; one that cannot start fails, with its reason shown as text", async () => {
    await check("keyed", "needs-keys");
    expect(await page("keyed")).toContain(WORKS_TEXT.needsKeys);
    await check("broken", "fails");
    const body = await page("broken");
    expect(body).toContain("Does not work here:");
    // What the server wrote is the server's: never markup on the page.
    expect(body).not.toContain(SCRIPT);
    const filtered = (await (await client(t.app).get("/api/mcp-servers?works=1&pageSize=100")).json()) as { data: CatalogServer[] };
    expect(filtered.data.map((s) => s.id).sort()).toEqual(["npm-everything", "runs", "runs-too"]);
  }, 200_000);

  it("one with nothing to run cannot run here, and says why", async () => {
    const r = await admin.post("/api/admin/mcp-servers/nowhere/check");
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toMatch(/^This server cannot be checked here/);
    expect((await api("nowhere")).check_outcome).toBe("cannot-run");
    expect(await page("nowhere")).toContain("Cannot run here:");
  });

  it("a remote entry gets a liveness check: one that answers works with its tools, one that wants credentials needs them", async () => {
    await check("remote-open", "works");
    expect(await page("remote-open")).toContain(html(WORKS_TEXT.worksRemote(2)));
    await check("remote-locked", "needs-keys");
    expect(await page("remote-locked")).toContain(WORKS_TEXT.needsSignIn);
    // Nothing of the platform's was sent to it: no cookie, no key, no header of a user's.
    for (const r of hostile.seen) {
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
    }
  }, 60_000);

  it("a user's own deployment never writes a result: one that runs an unchecked entry leaves it unchecked and out of the filter", async () => {
    const user = await signedInUser(t, "runner@example.com");
    const r = await user.post("/api/deploy/unchecked", {});
    expect(r.status, await r.clone().text()).toBe(202);
    await waitForStatus(user, "unchecked", "running", 60_000);
    // It listed its tools (its owner's view)...
    await until(
      async () =>
        (
          await t.db.database.pool.query(
            "select 1 from deployment_listings l join deployments d on d.id = l.deployment_id where d.user_id = $1",
            [user.id],
          )
        ).rowCount,
      (n) => n === 1,
      30_000,
    );
    // ...and nothing public moved.
    expect((await api("unchecked")).check_outcome).toBeUndefined();
    expect(await page("unchecked")).not.toContain(WORKS_TEXT.title);
    const filtered = (await (await client(t.app).get("/api/mcp-servers?works=1&pageSize=100")).json()) as { data: CatalogServer[] };
    expect(filtered.data.map((s) => s.id).sort()).toEqual(["npm-everything", "remote-open", "runs", "runs-too"]);
  }, 90_000);

  it("only admins check, and nobody else's check result can be written through the API", async () => {
    const user = await signedInUser(t, "someone@example.com");
    expect((await user.post("/api/admin/mcp-servers/runs/check")).status).toBe(403);
    expect((await client(t.app, t.config.PUBLIC_URL).post("/api/admin/mcp-servers/runs/check")).status).toBe(401);
    expect((await api("runs")).check_outcome).toBe("works");
  });
});
