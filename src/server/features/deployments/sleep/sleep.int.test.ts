import fs from "node:fs/promises";
import path from "node:path";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SLEEP_TEXT, type DeploymentView } from "~/shared/deployments.js";
import { GATEWAY_TEXT } from "../../gateway/text.js";
import { becomePro, createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry, EVERYTHING, registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { MCP_ACCEPT, newApiKey, raw, sdkClient, sdkV2Client, textOf } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { waitFor } from "~support/wait.js";

// Sleeping deployments (docs/hosting.md#sleeping), with real processes: the reference server
// `everything` from npm (installed once, so a wake installs nothing) goes to sleep after
// DEPLOY_IDLE_MS without a request and is woken by the next one, through every transport, with
// the official SDK clients; Free's "3 deployments, 1 concurrent"; crash loops are not woken.

const IDLE_MS = 1500;
let t: TestApp;
let repo: FixtureRepo;
let owner: Client & { id: string };
let key: string;
let dep: DeploymentView;
/** how many times the runner was asked to start each deployment (a wake is one start) */
const starts = new Map<string, number>();

const db = () => t.db.database.db;
const mcpUrl = (d: DeploymentView) => d.url;
const deploymentIn = async (app: TestApp, id: string) =>
  (
    await app.db.database.db.execute<{
      status: string;
      status_detail: string | null;
      runner_id: string | null;
      last_active_at: Date | null;
    }>(sql`select status, status_detail, runner_id, last_active_at from deployments where id = ${id}`)
  ).rows[0]!;
const deployment = (id: string) => deploymentIn(t, id);

async function asleep(c: Client, serverId: string): Promise<DeploymentView> {
  return waitForStatus(c, serverId, "sleeping", 20_000);
}

beforeAll(async () => {
  repo = await createFixtureRepo();
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DEPLOY_IDLE_MS: String(IDLE_MS),
    RESTART_BACKOFF_MS: "200",
    CRASH_LOOP_AFTER: "3",
    DEPLOY_START_TIMEOUT_MS: "30000",
    GATEWAY_RATE_FREE: "0",
    METRICS_TOKEN: "sleep-metrics-token-0123456789",
  });
  await t.listen();
  const runner = t.runtime.runner;
  const start = runner.start.bind(runner);
  runner.start = (spec) => {
    starts.set(spec.id, (starts.get(spec.id) ?? 0) + 1);
    start(spec);
  };
  for (const id of ["everything", "everything-2", "everything-3"]) await addCatalogEntry(t, id, `npx -y ${EVERYTHING}`);
  owner = await signedInUser(t, "sleeper@example.com");
  key = await newApiKey(owner, "sleeper");
  const r = await owner.post("/api/deploy/everything", { env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  dep = await waitForStatus(owner, "everything", "running", 180_000);
}, 240_000);

afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
});

describe("sleeping deployments", () => {
  it("sleeps when idle, keeping its URL, row and volume; the next request wakes it, and an old session gets 404", async () => {
    const volume = path.join(t.config.DATA_DIR, "deployments", dep.id);
    await fs.writeFile(path.join(volume, "kept.txt"), "still here");
    const client = await sdkClient(mcpUrl(dep), key);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "before" } }))).toContain("before");
    const oldSession = (client.transport as StreamableHTTPClientTransport).sessionId!;
    await client.close();

    const slept = await asleep(owner, "everything");
    expect(slept.url).toBe(dep.url);
    expect(slept.last_active_at).not.toBeNull();
    expect(slept.keep_awake).toBe(false);
    // The row says so first (no gateway sends it anything more), then its process stops.
    await waitFor("its process stopped", async () => !t.runtime.runner.runs(dep.id) || undefined, 10_000);
    expect((await deployment(dep.id)).runner_id).toBeNull();
    const startsBefore = starts.get(dep.id) ?? 0;
    // Ending the old session wakes nothing: it is gone.
    const ended = await raw(mcpUrl(dep), {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}`, "mcp-session-id": oldSession, "mcp-protocol-version": "2025-06-18" },
    });
    expect(ended.status).toBe(404);
    expect((await deployment(dep.id)).status).toBe("sleeping");

    // The session it had is gone with its process: the specification's 404, after the wake.
    const stale = await raw(mcpUrl(dep), {
      headers: {
        authorization: `Bearer ${key}`,
        accept: MCP_ACCEPT,
        "mcp-session-id": oldSession,
        "mcp-protocol-version": "2025-06-18",
      },
      body: { jsonrpc: "2.0", id: 7, method: "tools/list" },
    });
    expect(stale.status).toBe(404);
    await waitForStatus(owner, "everything", "running", 5000);
    expect(starts.get(dep.id)).toBe(startsBefore + 1);
    // The client starts a new session, as the specification says, and carries on.
    const again = await sdkClient(mcpUrl(dep), key);
    expect(textOf(await again.callTool({ name: "echo", arguments: { message: "after" } }))).toContain("after");
    await again.close();
    // Its volume was kept across the sleep.
    expect(await fs.readFile(path.join(volume, "kept.txt"), "utf8")).toBe("still here");
  });

  it("wakes for a new Streamable HTTP session and for the legacy SSE transport, marking the request log", async () => {
    await asleep(owner, "everything");
    const began = performance.now();
    const client = await sdkClient(mcpUrl(dep), key);
    const ms = performance.now() - began;
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "woken" } }))).toContain("woken");
    await client.close();
    expect(ms).toBeLessThan(10_000);

    await asleep(owner, "everything");
    const legacy = await sdkClient(dep.sse_url, key, { legacy: true });
    expect((await legacy.listTools()).tools.map((x) => x.name)).toContain("echo");
    await legacy.close();

    // The request that waited for the wake carries the marker (written in batches).
    await waitFor(
      "a woke marker in the request log",
      async () => {
        const r = await db().execute<{ n: number }>(
          sql`select count(*)::int as n from request_log where deployment_id = ${dep.id} and woke_ms is not null`,
        );
        return (r.rows[0]?.n ?? 0) >= 1 || undefined;
      },
      10_000,
    );
    const page = (await (await owner.get(`/api/deployments/${dep.id}/requests`)).json()) as {
      requests: { method: string; woke_ms: number | null }[];
    };
    const woke = page.requests.find((r) => r.woke_ms !== null);
    expect(woke?.method).toBe("initialize");
    expect(woke!.woke_ms).toBeGreaterThan(0);
  });

  it("metrics count wakes, their latency and the deployments asleep", async () => {
    const page = (
      await raw(`http://127.0.0.1:${t.config.PORT}/metrics`, { headers: { authorization: "Bearer sleep-metrics-token-0123456789" } })
    ).body;
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m").exec(page)?.[1] ?? NaN);
    expect(value('switchboard_deployment_wakes_total{outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(value("switchboard_deployment_wake_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(page).toMatch(/^switchboard_deployments\{status="sleeping"\} \d+$/m);
  });

  it("a 2026-07-28 stateless client carries on by itself across a sleep", async () => {
    const v2 = await sdkV2Client(mcpUrl(dep), key, "pin");
    expect(textOf(await v2.callTool({ name: "echo", arguments: { message: "one" } }))).toContain("one");
    await asleep(owner, "everything");
    expect(textOf(await v2.callTool({ name: "echo", arguments: { message: "two" } }))).toContain("two");
    await v2.close();
  });

  it("starts once for 20 concurrent first requests", async () => {
    await asleep(owner, "everything");
    const before = starts.get(dep.id) ?? 0;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        raw(mcpUrl(dep), {
          headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
          body: {
            jsonrpc: "2.0",
            id: i,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `c${i}`, version: "1" } },
          },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(starts.get(dep.id)).toBe(before + 1);
  });

  it("nobody else wakes it or changes it, and a client cannot forge the woke marker", async () => {
    await asleep(owner, "everything");
    const mallory = await signedInUser(t, "mallory-sleep@example.com");
    const malloryKey = await newApiKey(mallory, "m");
    const init = (k: string, extra: Record<string, string> = {}) =>
      raw(mcpUrl(dep), {
        headers: { authorization: `Bearer ${k}`, accept: MCP_ACCEPT, ...extra },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "forger", version: "1" } },
        },
      });
    for (const k of [malloryKey, "sb_not_a_key"]) expect([401, 403, 404]).toContain((await init(k)).status);
    expect((await mallory.put(`/api/deployments/${dep.id}/sleep`, { keep_awake: false })).status).toBe(404);
    expect((await deployment(dep.id)).status).toBe("sleeping");

    // Awake, a request that claims to have waited for a wake (the header front gateways send runners) is not marked.
    await sdkClient(mcpUrl(dep), key).then((c) => c.close());
    await waitForStatus(owner, "everything", "running", 10_000);
    expect((await init(key, { "x-switchboard-woke": "12345" })).status).toBe(200);
    await waitFor(
      "the forged request logged",
      async () => {
        const r = await db().execute<{ woke_ms: number | null }>(
          sql`select woke_ms from request_log where deployment_id = ${dep.id} and client_name = 'forger' order by id desc limit 1`,
        );
        return r.rows[0] ? r.rows[0] : undefined;
      },
      10_000,
    ).then((r) => expect(r.woke_ms).not.toBe(12345));
  });

  it("a deployment kept awake does not sleep; keeping awake is Pro's", async () => {
    const refused = await owner.put(`/api/deployments/${dep.id}/sleep`, { keep_awake: true });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(SLEEP_TEXT.keepAwakeProOnly);
    const pro = await signedInUser(t, "pro-sleeper@example.com");
    await becomePro(pro);
    expect((await pro.post("/api/deploy/everything-2", { env: {} })).status).toBe(202);
    const d = await waitForStatus(pro, "everything-2", "running", 60_000);
    const kept = await pro.put(`/api/deployments/${d.id}/sleep`, { keep_awake: true });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ keep_awake: true, message: SLEEP_TEXT.keptAwake });
    await new Promise((r) => setTimeout(r, IDLE_MS * 3));
    expect((await deployment(d.id)).status).toBe("running");
    await pro.put(`/api/deployments/${d.id}/sleep`, { keep_awake: false });
    await asleep(pro, "everything-2");
    expect((await pro.del(`/api/deployments/${d.id}`)).status).toBeLessThan(300);
    // Stopped by its owner: gone, and its URL wakes nothing. Its owner's client is told it is
    // stopped and how to bring it back; anyone else learns nothing.
    expect((await raw(d.url, { headers: { authorization: "Bearer x" }, body: {} })).status).toBe(401);
    const proKey = await newApiKey(pro, "pro");
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const stopped = await raw(d.url, { headers: { authorization: `Bearer ${proKey}`, accept: MCP_ACCEPT }, body: ping });
    expect(stopped.status).toBe(503);
    expect(stopped.json<{ error: { message: string } }>().error.message).toBe(GATEWAY_TEXT.stopped);
    const stranger = await newApiKey(await signedInUser(t, "stranger-sleep@example.com"), "s");
    const hidden = await raw(d.url, { headers: { authorization: `Bearer ${stranger}`, accept: MCP_ACCEPT }, body: ping });
    expect(hidden.status).toBe(404);
    // Deployed again: the same URL, and the owner's client carries on there.
    const again = await pro.post("/api/deploy/everything-2", { env: {} });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { deploymentInfo: DeploymentView }).deploymentInfo.url).toBe(d.url);
    await waitForStatus(pro, "everything-2", "running", 60_000);
    const back = await sdkClient(d.url, proKey);
    expect(textOf(await back.callTool({ name: "echo", arguments: { message: "same url" } }))).toContain("same url");
    await back.close();
  });
});

describe("plans count what is awake", () => {
  // An app of its own whose runner does not put a deployment to sleep for 1.5 s without requests by
  // itself: here only the plan's rule for room (LRU_IDLE_MS, from last_active_at) puts one to sleep.
  let lru: TestApp;
  beforeAll(async () => {
    const port = await freePort();
    lru = await createTestApp({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DEPLOY_IDLE_MS: "600000",
      DEPLOY_START_TIMEOUT_MS: "30000",
      GATEWAY_RATE_FREE: "0",
    });
    await lru.listen();
    for (const id of ["everything", "everything-2", "everything-3"]) await addCatalogEntry(lru, id, `npx -y ${EVERYTHING}`);
  }, 120_000);
  afterAll(async () => {
    await lru?.close();
  });

  it("Free keeps 3 deployments, 1 awake: beyond it, the least recently used idle one sleeps, else the plan's message", async () => {
    const free = await signedInUser(lru, "free-sleeper@example.com");
    const freeKey = await newApiKey(free, "free");
    // Set back once the runner has written its own record of the start (it writes activity every
    // quarter of the idle time, and would otherwise overwrite this): set back, wait past a write, and
    // again until it holds.
    const idleFor = (id: string, minutes: number) =>
      waitFor(
        "its last activity set back",
        async () => {
          await lru.db.database.db.execute(
            sql`update deployments set last_active_at = now() - (${minutes} * interval '1 minute') where id = ${id}`,
          );
          await new Promise((ok) => setTimeout(ok, IDLE_MS / 2));
          const r = await lru.db.database.db.execute(
            sql`select 1 from deployments where id = ${id} and last_active_at < now() - (${minutes - 0.5} * interval '1 minute')`,
          );
          return r.rows.length > 0 || undefined;
        },
        20_000,
      );

    expect((await free.post("/api/deploy/everything", { env: {} })).status).toBe(202);
    const first = await waitForStatus(free, "everything", "running", 60_000);
    // The first was just used: no room for a second one awake. The server page says so before a
    // deploy, and the deploy is refused with the same sentence.
    const html = async (id: string) => (await (await free.get(`/server/${id}`)).text()).replaceAll("&#x27;", "'");
    expect(await html("everything-2")).toContain(SLEEP_TEXT.noRoom("Free", 1));
    const refused = await free.post("/api/deploy/everything-2", { env: {} });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(SLEEP_TEXT.noRoom("Free", 1));

    // Idle now: the page names the one a deploy puts to sleep, before the deploy. (On a busy machine
    // the runner's own activity write may land between the set-back and the deploy: refused with the
    // plan's message, nothing changes, and the set-back is made again.)
    const deployOnceIdle = (idleId: string, server: string, sleeps: string) =>
      waitFor(
        `${server} deployed once ${idleId} was idle`,
        async () => {
          await idleFor(idleId, 2);
          const page = await html(server);
          if (!page.includes(sleeps)) throw new Error(`the page says: ${/Your [^<]*/.exec(page)?.[0] ?? "nothing of the plan"}`);
          const r = await free.post(`/api/deploy/${server}`, { env: {} });
          if (r.status === 403) return undefined;
          expect(r.status).toBe(202);
          return true;
        },
        60_000,
      );
    await deployOnceIdle(first.id, "everything-2", SLEEP_TEXT.deploySleeps("Free", 1, ["everything"]));
    const second = await waitForStatus(free, "everything-2", "running", 60_000);
    expect(await deploymentIn(lru, first.id)).toMatchObject({ status: "sleeping", status_detail: SLEEP_TEXT.sleptFor("everything-2") });
    await waitFor("the first one's process gone", async () => !lru.runtime.runner.runs(first.id) || undefined, 10_000);

    await deployOnceIdle(second.id, "everything-3", SLEEP_TEXT.deploySleeps("Free", 1, ["everything-2"]));
    const third = await waitForStatus(free, "everything-3", "running", 60_000);
    expect((await deploymentIn(lru, second.id)).status).toBe("sleeping");

    // A request to a sleeping one while the awake one was just used: the plan's message, nothing woken.
    const busy = await raw(first.url, {
      headers: { authorization: `Bearer ${freeKey}`, accept: MCP_ACCEPT },
      body: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(busy.status).toBe(503);
    const base = lru.config.PUBLIC_URL;
    expect(busy.json<{ error: { message: string } }>().error.message).toBe(
      SLEEP_TEXT.wakeRefused("Free", 1, `${base}/deployments`, `${base}/subscription`),
    );
    expect((await deploymentIn(lru, first.id)).status).toBe("sleeping");
    // The sleeping one's page says waking it cannot be done now.
    expect(await html("everything")).toContain(SLEEP_TEXT.noRoom("Free", 1));

    // Once the awake one has been idle a minute, the request wakes the first and the third sleeps. (On
    // a busy machine the runner's own activity write may land between the set-back and the request:
    // refused, nothing changes, and the set-back is made again.)
    const client = await waitFor(
      "the first one woken",
      async () => {
        await idleFor(third.id, 2);
        return sdkClient(first.url, freeKey).catch(() => undefined);
      },
      60_000,
    );
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "lru" } }))).toContain("lru");
    await client.close();
    expect((await deploymentIn(lru, third.id)).status).toBe("sleeping");
    const usage = await free.get("/deployments");
    expect(usage.status).toBe(200);
  }, 120_000);
});

describe("what is not woken", () => {
  it("a crash-looping deployment is neither put to sleep nor started again by traffic", async () => {
    const crasher = await signedInUser(t, "crasher@example.com");
    const crashKey = await newApiKey(crasher, "crash");
    await registerOwnedServer(crasher, "crasher/fixture");
    const r = await crasher.post("/api/deploy/crasher/fixture", { repositoryUrl: repo.url, env: { FIXTURE_CRASH_AFTER_MS: "100" } });
    expect(r.status, await r.clone().text()).toBe(202);
    const d = await waitForStatus(crasher, "crasher/fixture", "crash_looping", 90_000);
    const before = starts.get(d.id) ?? 0;
    for (let i = 0; i < 5; i++) {
      const a = await raw(d.url, {
        headers: { authorization: `Bearer ${crashKey}`, accept: MCP_ACCEPT },
        body: {
          jsonrpc: "2.0",
          id: i,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
        },
      });
      expect(a.status).toBe(503);
    }
    await new Promise((res) => setTimeout(res, IDLE_MS * 2));
    // Its back-off still restarts it (it runs until its next crash): never asleep, never started by traffic.
    expect(["crashed", "crash_looping", "running", "starting"]).toContain((await deployment(d.id)).status);
    expect(starts.get(d.id) ?? 0).toBe(before);
  });
});
