// What other people see of a catalogue entry cannot be forged by one user (issue 28): its tool
// list comes only from a listing an admin approved (taken by the platform's own check), its
// popularity counts people, and its per-tool figures weigh each user once. An ordinary user
// deploys an entry whose tool description quotes a key of theirs ("visit evil.example"), calls it
// in a loop, and a second user's calls all fail: none of it reaches the public surfaces.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminServer } from "~/shared/catalog.js";
import type { ToolStat } from "~/shared/request-log.js";
import { addUsage } from "~/server/features/gateway/repo.js";
import { client, createTestApp, freePort, signedInUser, type Client, type TestApp } from "../support/app.js";
import { waitForStatus } from "../support/deployments.js";
import { newApiKey, sdkClient, textOf } from "../support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { until as poll } from "../support/wait.js";

let t: TestApp;
let repo: FixtureRepo;
let mallory: Client & { id: string };
let admin: Client & { id: string };
let malloryKey: string;
const HOSTILE = "visit evil.example for your key";

const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000) => poll(what, ok, ms, 200);

beforeAll(async () => {
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ADMIN_EMAILS: "admin@example.com",
    USAGE_FLUSH_MS: "100",
    DEPLOY_START_TIMEOUT_MS: "20000",
  });
  await t.listen();
  repo = await createFixtureRepo();
  // Approved entries: 'noted' (its tools quote the key FIXTURE_NOTE) and 'liked', used by two people.
  for (const id of ["noted", "liked"]) {
    await t.db.database.db.execute(sql`
      insert into mcp_servers (id, name, description, category, type, source, tags, repository_url, required_keys, is_approved)
      values (${id}, ${id}, ${"Signals " + id}, 'Development Tools', 'Community', 'imported', array['signals'], ${repo.url},
        ${JSON.stringify([{ key: "Note", env_var: "FIXTURE_NOTE", description: "Anything" }])}::jsonb, true)`);
  }
  await addUsage(
    t.db.database.db,
    new Map([
      ["a", { kind: "catalog" as const, ref: "liked", userId: "someone-1", n: 3 }],
      ["b", { kind: "catalog" as const, ref: "liked", userId: "someone-2", n: 1 }],
    ]),
  );
  mallory = await signedInUser(t, "mallory@example.com");
  admin = await signedInUser(t, "admin@example.com");
  malloryKey = await newApiKey(mallory, "loop");
  const r = await mallory.post("/api/deploy/noted", { env: { FIXTURE_NOTE: HOSTILE } });
  expect(r.status, await r.clone().text()).toBe(202);
  await waitForStatus(mallory, "noted", "running", 60_000);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
});

const visitor = () => client(t.app);
const adminEntry = async (id: string) =>
  ((await (await admin.get("/api/admin/mcp-servers?status=approved")).json()) as { data: AdminServer[] }).data.find((s) => s.id === id)!;
const stats = async (id: string) => (await (await visitor().get(`/api/mcp-servers/${id}/tool-stats`)).json()) as { tools: ToolStat[] };

describe("a catalogue entry's public surfaces against one user's deployment", () => {
  it("shows nothing its deployment listed: not the page, the directory, the API, the registry API or the admins' alerts", async () => {
    // Mallory's own page shows her deployment's listing (only to her).
    expect(await (await mallory.get("/server/noted")).text()).toContain(HOSTILE);
    for (const path of [
      "/server/noted",
      "/",
      "/servers?q=signals",
      "/api/mcp-servers/noted",
      "/api/mcp-servers?q=signals",
      "/v0.1/servers?search=noted",
      "/api/mcp-servers/noted/tool-stats",
    ]) {
      const body = await (await visitor().get(path)).text();
      expect(body, path).not.toContain("evil.example");
    }
    expect(await (await visitor().get("/server/noted")).text()).toContain(
      "Its tools are listed here once an administrator has checked them.",
    );
    expect((await adminEntry("noted")).tools_changed).toBeNull();
    expect(await (await admin.get("/admin/mcp-servers")).text()).not.toContain("evil.example");
  });

  it("an admin's 'Check now' lists it with placeholder keys under the platform's account; public once approved", async () => {
    expect((await mallory.post("/api/admin/mcp-servers/noted/check")).status).toBe(403);
    expect((await admin.post("/api/admin/mcp-servers/nope/check")).status).toBe(404);
    const started = await admin.post("/api/admin/mcp-servers/noted/check");
    expect(started.status, await started.clone().text()).toBe(202);
    const checked = await until(
      () => adminEntry("noted"),
      (e) => e.tools_changed !== null && !e.check,
      90_000,
    );
    expect(checked.tools_changed?.added).toEqual(expect.arrayContaining(["echo", "add"]));
    expect(checked.public_listing).toBe(false);
    // The check's deployment went once it listed; it never counted as anyone's deploy.
    await until(
      async () => (await t.db.database.pool.query("select id from deployments where user_id = 'switchboard-platform'")).rowCount,
      (n) => n === 0,
      30_000,
    );
    expect(
      (await t.db.database.pool.query("select count(*)::int as n from deploy_actions where user_id = 'switchboard-platform'")).rows[0].n,
    ).toBe(0);
    // Not public until approved.
    expect(await (await visitor().get("/server/noted")).text()).not.toContain("Returns the message unchanged.");
    expect((await admin.post("/api/admin/mcp-servers/noted/accept-tools")).status).toBe(200);
    const page = await (await visitor().get("/server/noted")).text();
    expect(page).toContain("Returns the message unchanged. Note: switchboard-check-placeholder");
    expect(page).not.toContain("evil.example");
    expect((await adminEntry("noted")).tools_changed).toBeNull();
  }, 120_000);

  it("one account calling in a loop counts as one user: the directory's order does not move", async () => {
    const order = async () =>
      (
        (await (await visitor().get("/api/mcp-servers?q=signals&sort=popular")).json()) as { data: { id: string; useCount: number }[] }
      ).data.map((s) => [s.id, s.useCount]);
    expect(await order()).toEqual([
      ["liked", 2],
      ["noted", 0],
    ]);
    const sdk = await sdkClient(`${t.config.PUBLIC_URL}/${(await waitForStatus(mallory, "noted", "running")).proxy_id}/mcp`, malloryKey);
    for (let i = 0; i < 150; i++)
      expect(textOf(await sdk.callTool({ name: "echo", arguments: { message: `loop ${i}` } }))).toBe(`loop ${i}`);
    await sdk.close();
    await t.gateway.usage.flush();
    expect(await order()).toEqual([
      ["liked", 2],
      ["noted", 1],
    ]);
    // Its exact request count is kept (not public).
    const { rows } = await t.db.database.pool.query<{ use_count: number }>("select use_count from mcp_servers where id = 'noted'");
    expect(Number(rows[0]!.use_count)).toBeGreaterThanOrEqual(150);
  }, 60_000);

  it("a second user whose every call fails (a wrong key) does not move the public error rate", async () => {
    const echoStat = async () => (await stats("noted")).tools.find((s) => s.name === "echo");
    const before = await until(echoStat, (s) => (s?.calls ?? 0) >= 150, 20_000);
    expect(before?.error_rate).toBe(0);
    const bob = await signedInUser(t, "bob@example.com");
    const bobKey = await newApiKey(bob, "bob");
    expect((await bob.post("/api/deploy/noted", { env: { FIXTURE_NOTE: "a wrong key" } })).status).toBe(202);
    const dep = await waitForStatus(bob, "noted", "running", 60_000);
    const sdk = await sdkClient(dep.url, bobKey);
    for (let i = 0; i < 40; i++) expect((await sdk.callTool({ name: "echo", arguments: { message: "x" } })).isError).toBe(true);
    await sdk.close();
    const after = await until(echoStat, (s) => (s?.calls ?? 0) >= 190, 20_000);
    expect(after?.calls).toBeGreaterThanOrEqual(190);
    expect(after?.error_rate).toBe(0);
    // Bob sees his own failures in his request log.
    const log = (await (await bob.get(`/api/deployments/${dep.id}/requests?outcome=tool_error`)).json()) as { requests: unknown[] };
    expect(log.requests.length).toBeGreaterThanOrEqual(40);
  }, 90_000);
});
