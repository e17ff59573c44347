import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_TEXT } from "~/server/features/gateway/text.js";
import {
  api,
  deployFixture,
  mcpUrl,
  McpLoad,
  startCluster,
  userWithKey,
  waitAllRunning,
  waitFor,
  type Cluster,
  type DeploymentRow,
  type Member,
} from "../support/cluster.js";
import { MCP_ACCEPT, raw, rawSession, sdkClient, sdkV2Client, textOf } from "../support/gateway.js";
import { signInCookie } from "../support/process.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

// Several real Switchboard processes on one PostgreSQL (issue 17): two web+gateway processes (one
// with two workers), a gateway-only process and two runners, each with its own ports and data
// directory, behind HAProxy with plain round-robin and no stickiness. What an operator would notice: deployments spread over the runners, MCP
// traffic served by whichever gateway the balancer picks, usage counted exactly once, and
// revocations and sign-in limits holding in every process at once.

let c: Cluster;
let repo: FixtureRepo;
let gw1: Member;
let gw2: Member;
let gw3: Member;
/** the four users (adam is an admin), their keys and their deployments */
const users = ["adam", "bert", "cleo", "dora"];
const keys = new Map<string, string>();
let rows: DeploymentRow[];

const usageOf = async (qn: string) =>
  Number((await c.query<{ use_count: string }>("select use_count::text from servers where qualified_name = $1", [qn]))[0]!.use_count);
const rowOf = (user: string) => rows.find((r) => r.server_ref === `${user}/fixture`)!;

beforeAll(async () => {
  repo = await createFixtureRepo();
  c = await startCluster({
    members: [
      { name: "gw-1", roles: ["web", "gateway"] },
      // two worker processes sharing its port: revocations, limits and usage must hold across them too
      { name: "gw-2", roles: ["web", "gateway"], env: { WORKERS: "2" } },
      { name: "gw-3", roles: ["gateway"] },
      { name: "runner-a", roles: ["runner"] },
      { name: "runner-b", roles: ["runner"] },
    ],
    env: { AUTH_RATE_LIMIT: "on", ADMIN_EMAILS: "adam@example.com" },
  });
  gw1 = c.member("gw-1");
  gw2 = c.member("gw-2");
  gw3 = c.member("gw-3");
  // Accounts on gw-1 (the development outbox a confirmation link is read from is per process); deployments through the balancer.
  for (const u of users) keys.set(u, await userWithKey(c, gw1, `${u}@example.com`));
  await Promise.all(users.map((u) => deployFixture(c, keys.get(u)!, `${u}/fixture`, repo.url)));
  rows = await waitAllRunning(c, users.length, 90_000);
}, 180_000);

afterAll(async () => {
  await c?.close();
  await repo?.cleanup();
});

describe("a cluster behind a round-robin balancer", () => {
  it("places deployments on both runners, each registered with the address gateways reach it at", async () => {
    expect(new Set(rows.map((r) => r.runner_id)), c.logs()).toEqual(new Set(["runner-a", "runner-b"]));
    const runners = await c.query<{ id: string; url: string; draining: boolean }>("select id, url, draining from runners order by id");
    expect(runners).toEqual([
      { id: "runner-a", url: c.member("runner-a").runnerUrl, draining: false },
      { id: "runner-b", url: c.member("runner-b").runnerUrl, draining: false },
    ]);
  });

  it("shows an admin which runner holds their deployment; other users see nothing new", async () => {
    // Signed in: an admin's API key carries no admin powers.
    const cookie = await signInCookie(c.publicUrl, "adam@example.com");
    const [mine] = (await (await fetch(`${c.publicUrl}/api/deployments`, { headers: { cookie } })).json()) as {
      runner?: string;
      url: string;
    }[];
    expect(mine!.url).toBe(mcpUrl(c.publicUrl, rowOf("adam").proxy_id));
    expect(mine!.runner).toBe(rowOf("adam").runner_id);
    const [withKey] = (await (await api(c.publicUrl, keys.get("adam")!, "/api/deployments")).json()) as { runner?: string }[];
    expect(withKey!.runner ?? null).toBeNull();
    const [theirs] = (await (await api(c.publicUrl, keys.get("bert")!, "/api/deployments")).json()) as { runner?: string }[];
    expect(theirs!.runner ?? null).toBeNull();
  });

  it("answers health probes on a runner's port to anyone, and nothing else without the cluster secret, not even a user's own key", async () => {
    const runner = c.member(rowOf("adam").runner_id!);
    expect((await fetch(`${runner.runnerUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${runner.runnerUrl}/readyz`)).status).toBe(200);
    const direct = await raw(mcpUrl(runner.runnerUrl!, rowOf("adam").proxy_id), {
      headers: { authorization: `Bearer ${keys.get("adam")}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      },
    });
    expect(direct.status).toBe(401);
    const wrong = await raw(mcpUrl(runner.runnerUrl!, rowOf("adam").proxy_id), {
      headers: { "x-switchboard-cluster": "x".repeat(48), accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      },
    });
    expect(wrong.status).toBe(401);
  });

  it("serves 20 SDK sessions through HAProxy on every gateway; every call succeeds and usage equals the requests made", async () => {
    const before = new Map(await Promise.all(users.map(async (u) => [u, await usageOf(`${u}/fixture`)] as const)));
    const statsBefore = await c.haproxy.stats();
    const load = new McpLoad(
      users.map((u) => ({ deploymentId: rowOf(u).id, url: mcpUrl(c.publicUrl, rowOf(u).proxy_id), key: keys.get(u)! })),
      20,
    );
    await load.runOnce(10);
    expect(load.failures, c.logs()).toEqual([]);
    expect(load.calls).toBe(200);
    expect(load.answered).toBe(load.sent); // 20 initialize + 200 tools/call, nothing else

    // HAProxy's own counters: both gateways answered a fair share of the MCP traffic.
    const statsAfter = await c.haproxy.stats();
    const served = (name: string) => {
      const at = (s: typeof statsAfter) => s.find((x) => x.backend === "gateway" && x.server === name)?.ok ?? 0;
      return at(statsAfter) - at(statsBefore);
    };
    const total = served("gw-1") + served("gw-2") + served("gw-3");
    expect(total).toBeGreaterThanOrEqual(load.sent);
    for (const g of ["gw-1", "gw-2", "gw-3"]) expect(served(g), g).toBeGreaterThan(total * 0.2);

    // 'Total Usage (requests)' of each server rises by exactly the requests its sessions made, once written.
    const expected = new Map(users.map((u) => [u, before.get(u)! + (load.answeredBy.get(rowOf(u).proxy_id) ?? 0)]));
    const now = async () => new Map(await Promise.all(users.map(async (u) => [u, await usageOf(`${u}/fixture`)] as const)));
    const same = (a: Map<string, number>) => [...a.values()].join() === [...expected.values()].join();
    await waitFor("usage written", async () => (same(await now()) ? true : undefined), 30_000).catch(() => {});
    await new Promise((r) => setTimeout(r, 500)); // and no more than that
    expect(await now()).toEqual(expected);
  });

  it("keeps streams and large messages whole across gateways: the legacy SSE transport, a 100 KB echo both ways, and stateless 2026-07-28 requests", async () => {
    const u = "cleo";
    const url = mcpUrl(c.publicUrl, rowOf(u).proxy_id);
    const before = await usageOf(`${u}/fixture`);
    // Legacy HTTP+SSE: the stream stays on one gateway while each POST lands on the next one.
    const legacy = await sdkClient(url.replace(/\/mcp$/, "/sse"), keys.get(u)!, { legacy: true });
    for (let i = 0; i < 6; i++) expect(textOf(await legacy.callTool({ name: "add", arguments: { a: i, b: 1 } }))).toBe(String(i + 1));
    await legacy.close();
    // Streamable HTTP with bodies larger than the gateway forwards in one piece, each way.
    const big = "x".repeat(100 * 1024);
    const modern = await sdkClient(url, keys.get(u)!);
    for (let i = 0; i < 3; i++)
      expect(textOf(await modern.callTool({ name: "echo", arguments: { message: `${i}${big}` } }))).toContain(`${i}${big}`);
    await modern.close();
    // 2026-07-28, stateless: every request stands alone, whichever gateway it lands on.
    const stateless = await sdkV2Client(url, keys.get(u)!, "pin");
    for (let i = 0; i < 4; i++) expect(textOf(await stateless.callTool({ name: "add", arguments: { a: i, b: 2 } }))).toBe(String(i + 2));
    await stateless.close();
    // initialize + 6 calls, initialize + 3 calls, and discover + 4 calls: counted once each, wherever they landed.
    await waitFor("usage written", async () => ((await usageOf(`${u}/fixture`)) >= before + 16 ? true : undefined), 30_000).catch(() => {});
    expect(await usageOf(`${u}/fixture`)).toBe(before + 16);
  });

  it("a hosted server can neither reach a runner's internal port nor read the cluster's settings", async () => {
    const u = "dora";
    const client = await sdkClient(mcpUrl(c.publicUrl, rowOf(u).proxy_id), keys.get(u)!);
    try {
      // Its own environment holds the owner's keys and nothing of the platform's.
      const names = textOf(await client.callTool({ name: "list_env", arguments: {} })).split("\n");
      for (const n of ["CLUSTER_SECRET", "DATABASE_URL", "AUTH_SECRET", "SECRETS_KEY", "RUNNER_URL"]) expect(names).not.toContain(n);
      // Every runner's port, at every address the host might answer on from inside the sandbox.
      const hosts = [
        "127.0.0.1",
        "10.0.2.2",
        ...Object.values(os.networkInterfaces())
          .flat()
          .filter((i) => i && i.family === "IPv4" && !i.internal)
          .map((i) => i!.address),
      ];
      for (const runner of ["runner-a", "runner-b"]) {
        const port = Number(new URL(c.member(runner).runnerUrl!).port);
        for (const host of hosts) {
          const r = textOf(await client.callTool({ name: "try_connect", arguments: { host, port } }));
          expect(r, `${host}:${port}`).not.toBe("connected");
        }
      }
    } finally {
      await client.close();
    }
  });

  it("refuses a key revoked through one web process at every gateway on the next request, inside a session too", async () => {
    // Keys are made and revoked with a sign-in (a key cannot), through two different web processes.
    const cookieAt = async (m: Member) => ({
      cookie: await signInCookie(m.url, "bert@example.com", c.publicUrl),
      origin: c.publicUrl,
      "content-type": "application/json",
    });
    const { proxy_id } = rowOf("bert");
    const created = await fetch(`${gw2.url}/api/auth/apikeys`, {
      method: "POST",
      headers: await cookieAt(gw2),
      body: JSON.stringify({ name: "revoke-me" }),
    });
    expect(created.status).toBe(201);
    const doomed = ((await created.json()) as { apiKey: string }).apiKey;
    // One session opened at gw-1, used at both gateways directly (any gateway serves any session).
    const s = await rawSession(mcpUrl(gw1.url, proxy_id), doomed);
    // A new connection each time, so gw-2's requests go to each of its workers in turn.
    const callAt = (g: Member, id: number) =>
      raw(mcpUrl(g.url, proxy_id), { headers: { ...s.headers, connection: "close" }, body: { jsonrpc: "2.0", id, method: "tools/list" } });
    // Every process (each of gw-2's workers too) has now verified the key and may have it cached.
    for (const [i, g] of [gw1, gw2, gw2, gw3].entries()) expect((await callAt(g, 2 + i)).status).toBe(200);

    expect((await fetch(`${gw1.url}/api/auth/apikeys/revoke-me`, { method: "DELETE", headers: await cookieAt(gw1) })).status).toBe(200);
    // The other processes first: they learn of the revocation only through the database.
    for (const [i, g] of [gw2, gw2, gw3, gw1].entries()) {
      const inSession = await callAt(g, 10 + i);
      expect(inSession.status, `${g.name}: ${inSession.body}`).toBe(401);
      expect(inSession.headers["www-authenticate"]).toContain('error="invalid_token"');
      const fresh = await raw(mcpUrl(g.url, proxy_id), {
        headers: { authorization: `Bearer ${doomed}`, accept: MCP_ACCEPT, connection: "close" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        },
      });
      expect(fresh.status, g.name).toBe(401);
      expect(fresh.json()).toMatchObject({ error: { message: GATEWAY_TEXT.invalidKey } });
    }
    // The owner's other key still works everywhere.
    for (const g of [gw1, gw2, gw3]) expect((await rawSession(mcpUrl(g.url, proxy_id), keys.get("bert")!)).sessionId).toBeTruthy();
  });

  it("shows a catalogue change made through one web process in every process's search on the next request", async () => {
    const [entry] = await c.query<{ id: string; name: string }>("select id, name from mcp_servers where is_approved order by id limit 1");
    const cookie = await signInCookie(gw1.url, "adam@example.com", c.publicUrl);
    const review = (action: string) =>
      fetch(`${gw1.url}/api/admin/mcp-servers/${entry!.id}/${action}`, { method: "POST", headers: { cookie, origin: c.publicUrl } });
    // A new connection each time, so gw-2's searches reach each of its workers in turn.
    const shownAt = async (g: Member) => {
      const r = await raw(`${g.url}/api/mcp-servers?q=${encodeURIComponent(entry!.name)}`, {
        method: "GET",
        headers: { connection: "close" },
      });
      return r.json<{ data: { id: string }[] }>().data.some((s) => s.id === entry!.id);
    };
    // Every process has built its index and answers from it.
    for (const g of [gw1, gw2, gw2]) expect(await shownAt(g)).toBe(true);
    expect((await review("unapprove")).status).toBe(200);
    for (const g of [gw2, gw2, gw1]) expect(await shownAt(g), `${g.name} after unapprove`).toBe(false);
    expect((await review("approve")).status).toBe(200);
    for (const g of [gw2, gw2, gw1]) expect(await shownAt(g), `${g.name} after approve`).toBe(true);
  });

  it("holds the sign-in limit across two web processes: the 11th attempt for one account is refused by either", async () => {
    const signIn = (g: Member, i: number) =>
      fetch(`${g.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { origin: c.publicUrl, "content-type": "application/json", connection: "close" },
        body: JSON.stringify({ email: "target@example.com", password: `guess-${i}-xx` }),
      });
    for (let i = 0; i < 10; i++) expect((await signIn(i % 2 ? gw2 : gw1, i)).status, `attempt ${i + 1}`).toBe(401);
    for (const g of [gw1, gw2, gw2]) {
      const refused = await signIn(g, 99);
      expect(refused.status, g.name).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
    }
    // Another account from the same address is still allowed.
    const other = await fetch(`${gw2.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin: c.publicUrl, "content-type": "application/json" },
      body: JSON.stringify({ email: "other@example.com", password: "whatever1" }),
    });
    expect(other.status).toBe(401);
  });

  it("serves a toolset from every gateway, its member on another runner reached the way clients reach it", async () => {
    // A user whose deployment is on the runner a new toolset will not take: placement picks the
    // runner with the most room (the fewest hosted deployments; a tie goes to the first by name).
    const load = await c.query<{ runner_id: string; n: number }>(
      `select r.id as runner_id, count(d.id)::int as n from runners r
         left join deployments d on d.runner_id = r.id and d.status not in ('failed', 'stopped')
                                and coalesce(d.source->>'kind', '') not in ('remote', 'toolset')
        group by r.id order by n, r.id`,
    );
    const toolsetRunner = load[0]!.runner_id;
    const user = users.find((u) => rowOf(u).runner_id !== toolsetRunner)!;
    expect(user, c.logs()).toBeTruthy();
    const member = rowOf(user);
    const made = await api(c.publicUrl, keys.get(user)!, "/api/toolsets", {
      method: "POST",
      body: { name: "spread", members: [{ deployment_id: member.id }] },
    });
    expect(made.status, await made.clone().text()).toBe(202);
    const ts = ((await made.json()) as { toolset: { id: string; url: string } }).toolset;
    const placed = await waitFor(
      "the toolset running",
      async () => {
        const [row] = await c.query<{ status: string; runner_id: string | null }>(
          "select status, runner_id from deployments where id = $1",
          [ts.id],
        );
        return row?.status === "running" ? row : undefined;
      },
      60_000,
    );
    expect(placed.runner_id, "the toolset and its member on different runners").not.toBe(member.runner_id);
    // Sessions through the balancer land on every gateway; each call crosses to the member's runner.
    for (let i = 0; i < 6; i++) {
      const client = await sdkClient(mcpUrl(c.publicUrl, new URL(ts.url).pathname.split("/")[1]!), keys.get(user)!);
      try {
        expect(textOf(await client.callTool({ name: "fixture_echo", arguments: { message: `through ${i}` } }))).toContain(`through ${i}`);
      } finally {
        await client.close();
      }
    }
    const v2 = await sdkV2Client(mcpUrl(gw3.url, new URL(ts.url).pathname.split("/")[1]!), keys.get(user)!, "pin");
    try {
      expect(textOf(await v2.callTool({ name: "fixture_echo", arguments: { message: "stateless" } }))).toContain("stateless");
    } finally {
      await v2.close();
    }
  });
  it("serves an organisation's deployment to a member's own key at every gateway, through its runner; their removal ends their session everywhere", async () => {
    const signedIn = async (m: Member, email: string) => ({
      cookie: await signInCookie(m.url, email, c.publicUrl),
      origin: c.publicUrl,
      "content-type": "application/json",
    });
    const made = await fetch(`${gw1.url}/api/orgs`, {
      method: "POST",
      headers: await signedIn(gw1, "dora@example.com"),
      body: JSON.stringify({ name: "Team", slug: "team" }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const org = (await made.json()) as { id: string };
    // cleo is a member: invitations have their own tests (orgs.int.test.ts); here it is what every process must agree on.
    const [cleo] = await c.query<{ id: string }>(`select id from "user" where email = 'cleo@example.com'`);
    await c.query(`insert into member (id, organization_id, user_id, role, created_at) values ('cleo-in-team', $1, $2, 'member', now())`, [
      org.id,
      cleo!.id,
    ]);
    const dep = await api(c.publicUrl, keys.get("dora")!, "/api/deploy/dora/fixture", {
      method: "POST",
      body: { repositoryUrl: repo.url, env: {}, owner: "team" },
    });
    expect(dep.status, await dep.clone().text()).toBe(202);
    const row = await waitFor(
      "the organisation's deployment running on a runner",
      async () => {
        const [r] = await c.query<DeploymentRow>(`select id, proxy_id, status, runner_id from deployments where user_id = $1`, [
          `org_${org.id}`,
        ]);
        return r?.status === "running" && r.runner_id ? r : undefined;
      },
      90_000,
    );
    // The member's own key, at each gateway: the front admits them as a member, the runner takes its word.
    for (const g of [gw1, gw2, gw3]) {
      const s = await rawSession(mcpUrl(g.url, row.proxy_id), keys.get("cleo")!);
      expect((await s.call(2, "tools/list")).status, g.name).toBe(200);
    }
    // Someone else's key reaches nothing of it.
    const outsider = await raw(mcpUrl(gw2.url, row.proxy_id), {
      headers: { authorization: `Bearer ${keys.get("bert")!}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
    });
    expect(outsider.status).toBe(404);

    const open = await rawSession(mcpUrl(gw3.url, row.proxy_id), keys.get("cleo")!);
    const removed = await fetch(`${gw2.url}/api/orgs/team/members/cleo-in-team`, {
      method: "DELETE",
      headers: await signedIn(gw2, "dora@example.com"),
    });
    expect(removed.status, await removed.clone().text()).toBe(200);
    // The session lives on the runner, which learns of the removal through the database's signal.
    await waitFor(
      "the removed member's session to end",
      async () => ((await open.call(3, "tools/list")).status === 404 ? true : undefined),
      10_000,
    );
    for (const g of [gw1, gw2, gw3])
      await expect(rawSession(mcpUrl(g.url, row.proxy_id), keys.get("cleo")!), g.name).rejects.toThrow(/404/);
    // The organisation's owner still reaches it; then it is stopped, leaving the cluster as it was.
    expect((await rawSession(mcpUrl(gw1.url, row.proxy_id), keys.get("dora")!)).sessionId).toBeTruthy();
    expect((await api(c.publicUrl, keys.get("dora")!, `/api/deployments/${row.id}`, { method: "DELETE" })).status).toBe(200);
  }, 150_000);
});
