import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_TEXT } from "~/server/features/gateway/text.js";
import {
  alive,
  deployFixture,
  deploymentChains,
  deploymentRows,
  descendantsOf,
  LEASE_MS,
  mcpUrl,
  McpLoad,
  sleep,
  startCluster,
  startSampler,
  userWithKey,
  waitAllRunning,
  waitFor,
  waitRunningOn,
  type Cluster,
  type DeploymentRow,
  type Member,
  type ProcessSampler,
} from "../support/cluster.js";
import { rawSession, sdkClient, textOf } from "../support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

// Losing runners in a real cluster (issue 17): two web+gateway processes and two runners behind
// HAProxy, RUNNER_LEASE_MS=6000. A runner killed with -9 under load, one stopped cleanly with
// SIGTERM, one paused with SIGSTOP past its lease and resumed. Throughout, a sampler reads the
// process table every 50 ms: no deployment may ever have two server processes at once.

let c: Cluster;
let repo: FixtureRepo;
let sampler: ProcessSampler;
const users = ["anna", "bela", "cato", "dino"];
const keys = new Map<string, string>();
let ids: string[];
let byId: Map<string, { user: string; proxyId: string; key: string }>;

/** The deployments a runner holds, by their rows. */
async function heldBy(r: Member): Promise<string[]> {
  return (await deploymentRows(c)).filter((x) => x.runner_id === r.name).map((x) => x.id);
}

/**
 * A fresh SDK session through HAProxy calls the deployment's echo tool. Right after a move a
 * connection cut mid-answer ("other side closed", seen once in CI on a loaded machine) is what a
 * client meets during any failover: like a client, it opens one new session and tries again.
 * A wrong answer, or a second failure, fails the test.
 */
async function works(id: string): Promise<void> {
  const d = byId.get(id)!;
  const once = async () => {
    const client = await sdkClient(mcpUrl(c.publicUrl, d.proxyId), d.key);
    try {
      return textOf(await client.callTool({ name: "echo", arguments: { message: `hello ${d.user}` } }));
    } finally {
      await client.close();
    }
  };
  let text: string;
  try {
    text = await once();
  } catch (e) {
    if (!/fetch failed|other side closed|ECONNRESET|socket hang up/i.test(`${String(e)} ${String((e as Error).cause ?? "")}`)) throw e;
    text = await once();
  }
  expect(text).toBe(`hello ${d.user}`);
}

/** Sessions opened now through HAProxy, to be tried again once their deployment has moved. */
const oldSessions = (list: string[]) =>
  Promise.all(list.map((id) => rawSession(mcpUrl(c.publicUrl, byId.get(id)!.proxyId), byId.get(id)!.key)));

async function expectOldSessionsGone(sessions: Awaited<ReturnType<typeof oldSessions>>): Promise<void> {
  for (const s of sessions) {
    const r = await s.call(99, "tools/list");
    expect(r.status, r.body).toBe(404);
    expect(r.json()).toMatchObject({ error: { message: GATEWAY_TEXT.sessionNotFound } });
  }
}

async function expectNeverTwo(): Promise<void> {
  const r = await sampler.report();
  // (other test files on this machine have deployments of their own: only ours count)
  expect(
    r.overlaps.filter((o) => ids.includes(o.id)),
    JSON.stringify(r.changes.filter((x) => ids.includes(x.id))),
  ).toEqual([]);
  for (const id of ids) expect(r.max[id], id).toBe(1);
  expect(r.maxGapMs).toBeLessThan(1000); // it really sampled throughout
}

/** A runner that was stopped comes back (as its machine's service manager would start it) and heartbeats. */
async function bringBack(r: Member): Promise<void> {
  if (r.proc.child.exitCode === null && r.proc.child.signalCode === null) return;
  await r.restart();
  await waitFor(
    `${r.name} heartbeating`,
    async () =>
      (await c.query("select 1 from runners where id = $1 and heartbeat_at > now() - interval '2 seconds' and not draining", [r.name]))
        .length
        ? true
        : undefined,
    15_000,
  );
}

beforeAll(async () => {
  sampler = startSampler(50);
  repo = await createFixtureRepo();
  c = await startCluster({
    members: [
      { name: "gw-1", roles: ["web", "gateway"] },
      { name: "gw-2", roles: ["web", "gateway"] },
      { name: "runner-a", roles: ["runner"] },
      { name: "runner-b", roles: ["runner"] },
    ],
    // A closed loop of calls for the whole test: far more than fair use's Free minute (tested in fair-use.test.ts).
    env: { AUTH_RATE_LIMIT: "off", GATEWAY_RATE_FREE: "0" },
  });
  for (const [i, u] of users.entries()) keys.set(u, await userWithKey(c, c.member(i % 2 ? "gw-2" : "gw-1"), `${u}@example.com`));
  ids = await Promise.all(users.map((u) => deployFixture(c, keys.get(u)!, `${u}/fixture`, repo.url)));
  const rows = await waitAllRunning(c, users.length, 90_000);
  byId = new Map(
    rows.map((r) => [r.id, { user: r.server_ref.split("/")[0]!, proxyId: r.proxy_id, key: keys.get(r.server_ref.split("/")[0]!)! }]),
  );
}, 180_000);

afterAll(async () => {
  await sampler?.stop();
  await c?.close();
  await repo?.cleanup();
});

describe("losing a runner", () => {
  it("kill -9 under load: its deployments run on the other runner within 30 s, sessions recover by initializing again, nothing is lost", async () => {
    const [a, b] = [c.member("runner-a"), c.member("runner-b")];
    const [victim, survivor] = (await heldBy(a)).length >= (await heldBy(b)).length ? [a, b] : [b, a];
    const moved = await heldBy(victim);
    const stayed = ids.filter((id) => !moved.includes(id));
    expect(moved.length).toBeGreaterThan(0);
    const keysBefore = await c.query("select id, user_id, key_hash from api_keys order by id");
    const usageBefore = await c.query<{ qualified_name: string; use_count: string }>(
      "select qualified_name, use_count::text from servers order by qualified_name",
    );
    const old = await oldSessions(moved);
    const victimTree = descendantsOf(victim.pid);

    const load = new McpLoad(
      ids.map((id) => ({ deploymentId: id, url: mcpUrl(c.publicUrl, byId.get(id)!.proxyId), key: byId.get(id)!.key })),
      20,
    );
    load.start(25);
    let recoveredMs: number;
    let killedMs = 0;
    try {
      await sleep(2000);
      expect(load.failures, "before the kill").toEqual([]);
      const killedAt = Date.now();
      killedMs = killedAt - load.started;
      victim.proc.child.kill("SIGKILL");
      await victim.proc.stop("SIGKILL");
      await waitRunningOn(c, moved, survivor, 30_000);
      for (const id of moved) await works(id);
      recoveredMs = Date.now() - load.started;
      expect(Date.now() - killedAt).toBeLessThanOrEqual(30_000);
      await sleep(3000); // every session has initialized again and called since
    } finally {
      await load.stop();
    }
    const summary = JSON.stringify({ killedMs, recoveredMs, failures: load.failures.slice(0, 30), sessions: load.sessions });
    // Deployments on the survivor never noticed; the moved ones' sessions failed, then initialized again and work.
    expect(
      load.failures.filter((f) => stayed.includes(f.deploymentId)),
      summary,
    ).toEqual([]);
    for (const s of load.sessions) expect(s.lastOkMs, summary).toBeGreaterThan(recoveredMs);
    // After recovery the only failure a client may see is the spec's 404 for its old session.
    expect(
      load.failures.filter((f) => f.atMs > recoveredMs && f.status !== 404),
      summary,
    ).toEqual([]);
    await expectOldSessionsGone(old);

    await expectNeverTwo();
    // Nothing of the dead runner lives on (its hosted servers, sandboxes, helpers).
    await waitFor("the killed runner's processes gone", async () => (victimTree.some(alive) ? undefined : true), 10_000).catch(() => {});
    expect(victimTree.filter(alive)).toEqual([]);

    // Nothing lost: the deployments with their URLs, the keys, and usage (at least what was answered, at most what was sent).
    const rows = await deploymentRows(c);
    expect(rows.map((r) => [r.id, r.proxy_id]).sort()).toEqual([...byId].map(([id, d]) => [id, d.proxyId]).sort());
    expect(await c.query("select id, user_id, key_hash from api_keys order by id")).toEqual(keysBefore);
    const total = async () => Number((await c.query<{ n: string }>("select coalesce(sum(use_count), 0)::text as n from servers"))[0]!.n);
    const base = usageBefore.reduce((n, r) => n + Number(r.use_count), 0);
    await waitFor("usage written", async () => ((await total()) - base >= load.answered ? true : undefined), 30_000).catch(() => {});
    const delta = (await total()) - base;
    expect(delta, `'Total Usage' rose by ${delta}; requests answered ${load.answered}, sent ${load.sent}`).toBeGreaterThanOrEqual(
      load.answered,
    );
    expect(delta).toBeLessThanOrEqual(load.sent);
  }, 90_000);

  it("SIGTERM: a runner hands its deployments over before it exits, and the URLs work after initializing again", async () => {
    const [a, b] = [c.member("runner-a"), c.member("runner-b")];
    await bringBack(a);
    await bringBack(b);
    const [leaving, staying] = (await heldBy(a)).length >= (await heldBy(b)).length ? [a, b] : [b, a];
    const handed = await heldBy(leaving);
    expect(handed.length).toBeGreaterThan(0);
    const old = await oldSessions(handed);
    const chains = deploymentChains(leaving.pid);

    const t0 = Date.now();
    const code = await leaving.proc.stop("SIGTERM");
    const exitedMs = Date.now() - t0;
    expect(code, leaving.output()).toBe(0);
    // By the time it exited, its deployments were placed on the other runner and its children were stopped.
    const atExit = (await deploymentRows(c)).filter((r) => handed.includes(r.id));
    expect(
      atExit.map((r) => r.runner_id),
      JSON.stringify(atExit),
    ).toEqual(handed.map(() => staying.name));
    expect(chains.filter(alive)).toEqual([]);
    await waitRunningOn(c, handed, staying, 30_000);
    // A handover, not a failover: the other runner started them at once, without waiting for a lease to run out.
    const runningMs = Date.now() - t0;
    expect(
      runningMs - exitedMs,
      `exited after ${exitedMs} ms, running on ${staying.name} after ${runningMs} ms\n--- ${leaving.name}\n${leaving.output()}\n--- ${staying.name}\n${staying.output()}`,
    ).toBeLessThan(LEASE_MS / 2);
    for (const id of handed) await works(id);
    await expectOldSessionsGone(old);
    await expectNeverTwo();
  }, 90_000);

  it("a runner paused with SIGSTOP past its lease loses its deployments; resumed, it stops its stale children and writes nothing", async () => {
    const [a, b] = [c.member("runner-a"), c.member("runner-b")];
    await bringBack(a);
    await bringBack(b);
    const [paused, other] = (await heldBy(a)).length >= (await heldBy(b)).length ? [a, b] : [b, a];
    const lost = await heldBy(paused);
    expect(lost.length).toBeGreaterThan(0);
    const stale = deploymentChains(paused.pid);
    expect(stale.length).toBeGreaterThanOrEqual(lost.length);

    process.kill(paused.pid, "SIGSTOP");
    let before: DeploymentRow[];
    try {
      before = await waitRunningOn(c, lost, other, 30_000);
      for (const id of lost) await works(id);
    } finally {
      process.kill(paused.pid, "SIGCONT");
    }
    // Awake again for more than one heartbeat period: the rows are still what the new runner wrote.
    await sleep(LEASE_MS);
    const after = (await deploymentRows(c)).filter((r) => lost.includes(r.id));
    expect(after).toEqual(before);
    expect(stale.filter(alive)).toEqual([]);
    await waitRunningOn(c, lost, other, 1000);
    for (const id of lost) await works(id);
    await expectNeverTwo();
  }, 90_000);
});
