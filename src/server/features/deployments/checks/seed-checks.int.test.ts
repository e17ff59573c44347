import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client, TestApp } from "~support/app.js";
import { SEED_SERVERS } from "../../catalog/seed-data.js";
import { listServers, seedCatalogIfEmpty } from "../../catalog/service.js";
import { startSubmissionsApp, valid } from "../../catalog/submissions-test-support.js";
import { createLogger } from "../../../log.js";
import { CatalogChecks, type CheckDeps } from "./checks.js";
import { deployabilityOf } from "../deployability.js";
import { checkState, PLATFORM_USER_ID, publicFacts, saveListing } from "../definitions/listings.js";
import { SEED_CHECK_JOB, SeedChecks, type SeedCheckDeps } from "./seed-checks.js";

// The demo catalogue checked after start-up (docs/product.md#works-here): the platform's own seeded
// entries that can run here are checked one at a time, and their listings are public without an
// admin; a submitted entry running the very same command still waits for an admin's approval. The
// runner here is a stand-in that lists at once (or holds a check under way): what it runs is the
// e2e test's business (tests/e2e/works-here.test.ts).

const LISTING = { tools: [{ name: "echo", description: "Echoes its input", inputSchema: { type: "object" } }], prompts: [], resources: [] };
const log = createLogger({ level: "silent", pretty: false });

let t: TestApp;
let user: Client & { id: string };
let admin: Client & { id: string };
let checks: CatalogChecks;
/** entries whose check the stand-in runner holds under way (it lists nothing yet) */
const held = new Set<string>();
/** every check deployment the stand-in runner was asked to start, by entry */
const launched: string[] = [];
let complete = false;
const processes: SeedChecks[] = [];

/** One process's seed checks, as platform.ts wires them (tickMs 1: each tick may claim the run). */
function node(tickMs = 1, config: Partial<SeedCheckDeps["config"]> = {}): SeedChecks {
  const p = new SeedChecks({
    db: t.db.database.db,
    log,
    config: { SEED_CHECKS: "on", GIT_ALLOW_FILE: "off", ...config },
    sandboxComplete: () => complete,
    check: (id) => checks.start(id),
    tickMs,
  });
  processes.push(p);
  return p;
}

// The demo entries with a command that can run here (cloudflare, a repository without one, is not the seed's to run).
const seedIds = SEED_SERVERS.filter(
  (s) =>
    s.npx_command &&
    deployabilityOf(
      { npxCommand: s.npx_command ?? null, repositoryUrl: s.repository_url, url: null, packages: null },
      { allowFileGit: false },
    ).kind === "deployable",
).map((s) => s.id);

beforeAll(async () => {
  ({ t, user, admin } = await startSubmissionsApp());
  const db = t.db.database.db;
  expect(await seedCatalogIfEmpty(db)).toBe(SEED_SERVERS.length);
  const lifecycle: CheckDeps["lifecycle"] = {
    // The runner: the check's server started and listed (saved as the runner saves it), unless held.
    launch: async (row) => {
      launched.push(row.serverRef);
      if (!held.has(row.serverRef)) await saveListing(db, row, LISTING);
    },
    stop: async (id) => {
      await db.execute(sql`delete from deployments where id = ${id}`);
    },
  };
  checks = new CatalogChecks({
    db,
    config: { GIT_ALLOW_FILE: "off", DEPLOY_INSTALL_TIMEOUT_MS: 60_000, DEPLOY_START_TIMEOUT_MS: 60_000 },
    box: { seal: () => "sealed" } as never,
    lifecycle,
    log,
  });
});
afterAll(async () => {
  for (const p of processes) p.close();
  checks?.close();
  await t?.close();
});

const tools = async (id: string) => (await publicFacts(t.db.database.db, { kind: "catalog", ref: id })).listing?.tools ?? null;
const works = async () => (await listServers(t.db.database.db, { works: "1", page: 1, pageSize: 100 })).data.map((s) => s.id);

describe("the demo catalogue checked after start-up", () => {
  it("a submission of the demo's own command gains no trust, whatever its body says", async () => {
    const body = {
      ...valid,
      id: "everything-again",
      name: "Everything Again",
      npx_command: "npx -y @modelcontextprotocol/server-everything",
      source: "official",
      seed_command: "npx -y @modelcontextprotocol/server-everything",
      seedCommand: "npx -y @modelcontextprotocol/server-everything",
    };
    expect((await user.post("/api/mcp-servers", body)).status).toBe(201);
    expect((await admin.post("/api/admin/mcp-servers/everything-again/approve")).status).toBe(200);
    const r = await t.db.database.pool.query("select seed_command from mcp_servers where id = 'everything-again'");
    expect(r.rows[0].seed_command).toBeNull();
  });

  it("waits for a complete sandbox", async () => {
    const p = node();
    expect(await p.tick()).toBeUndefined();
    expect(launched).toEqual([]);
  });

  it("is off with SEED_CHECKS=off", async () => {
    complete = true;
    const p = node(5, { SEED_CHECKS: "off" });
    p.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(launched).toEqual([]);
  });

  it("checks the first demo entry and makes its listing public without an admin: its page lists tools, 'Works here' finds it", async () => {
    const p = node();
    expect(await p.tick()).toBe("everything");
    expect((await checkState(t.db.database.db, "everything")).status).toBeNull();
    expect(await tools("everything")).toEqual(LISTING.tools);
    const facts = await publicFacts(t.db.database.db, { kind: "catalog", ref: "everything" });
    expect(facts.check).toMatchObject({ outcome: "works", tools: 1 });
    const pending = await t.db.database.pool.query("select candidate from catalog_listings where server_id = 'everything'");
    expect(pending.rows[0].candidate).toBeNull();
    expect(await works()).toContain("everything");
    // The page's API says so too.
    expect(await (await t.app.request("/api/mcp-servers/everything")).json()).toMatchObject({ check_outcome: "works" });
  });

  it("a submitted entry's check, the same command, still waits for an admin", async () => {
    await checks.start("everything-again");
    expect((await checkState(t.db.database.db, "everything-again")).status).toBeNull();
    expect(await tools("everything-again")).toBeNull();
    const r = await t.db.database.pool.query(
      "select candidate is not null as waiting from catalog_listings where server_id = 'everything-again'",
    );
    expect(r.rows[0].waiting).toBe(true);
    expect((await admin.post("/api/admin/mcp-servers/everything-again/accept-tools")).status).toBe(200);
    expect(await tools("everything-again")).toEqual(LISTING.tools);
  });

  it("one at a time across processes: none starts while a demo check is under way, and two ticking together start one", async () => {
    const [a, b] = [node(1000), node(1000)];
    held.add("filesystem");
    // The last claim's interval is over (these two claim for a second each).
    await t.db.database.pool.query("delete from cluster_jobs where name = $1", [SEED_CHECK_JOB]);
    const first = await Promise.all([a.tick(), b.tick()]);
    expect(first.filter((x) => x !== undefined)).toEqual(["filesystem"]);
    expect((await checkState(t.db.database.db, "filesystem")).status).toBe("checking");
    expect(await Promise.all([a.tick(), b.tick()])).toEqual([undefined, undefined]);
    // The held check lists: the next entry is free to go.
    const [row] = (
      await t.db.database.pool.query(`select * from deployments where user_id = $1 and server_ref = 'filesystem'`, [PLATFORM_USER_ID])
    ).rows as { id: string }[];
    await saveListing(t.db.database.db, { id: row!.id, userId: PLATFORM_USER_ID, serverKind: "catalog", serverRef: "filesystem" }, LISTING);
    expect(await tools("filesystem")).toEqual(LISTING.tools);
  });

  it("an entry whose command an edit changed is no longer trusted: the demo job leaves it, and its check waits for an admin", async () => {
    await t.db.database.pool.query("update mcp_servers set npx_command = 'npx -y some-other-mcp' where id = 'time'");
    await checks.start("time");
    expect(await tools("time")).toBeNull();
  });

  it("goes through every demo entry that can run here once, and a restart or another process checks none again", async () => {
    const p = node();
    for (let i = 0; i < 200; i++) {
      const r = await p.tick();
      if (r === "done") break;
      await new Promise((res) => setTimeout(res, 3));
    }
    const byJob = launched.filter((id) => !["everything-again", "time"].includes(id));
    expect(byJob.sort()).toEqual(seedIds.filter((id) => id !== "time").sort());
    // Remote or unparsable demo entries are never started (nothing outside to probe or run).
    expect(new Set(byJob).size).toBe(byJob.length);
    for (const id of ["memory", "github"]) expect(await tools(id)).toEqual(LISTING.tools);
    expect(await works()).toEqual(expect.arrayContaining(["everything", "filesystem", "memory"]));
    const before = launched.length;
    expect(await node().tick()).toBe("done");
    expect(launched.length).toBe(before);
  });
});
