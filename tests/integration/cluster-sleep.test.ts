import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deployFixture,
  mcpUrl,
  startCluster,
  startSampler,
  userWithKey,
  waitAllRunning,
  waitFor,
  type Cluster,
  type ProcessSampler,
} from "../support/cluster.js";
import { MCP_ACCEPT, raw, sdkClient, textOf } from "../support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

// Sleeping deployments in a real cluster (issue 35): two web+gateway processes and two runners
// behind HAProxy, DEPLOY_IDLE_MS=2000. A deployment sleeps on its runner; a request through any
// gateway wakes it; with the runner it slept on killed, the next request wakes it on the other;
// 20 concurrent first requests through both gateways start it once. A sampler reads the process
// table every 50 ms throughout: no deployment ever has two server processes.

let c: Cluster;
let repo: FixtureRepo;
let sampler: ProcessSampler;
const users = ["ella", "finn"];
const keys = new Map<string, string>();
let ids: string[];

interface Row {
  id: string;
  proxy_id: string;
  status: string;
  runner_id: string | null;
  slept_on: string | null;
}
const row = async (id: string) =>
  (await c.query<Row>("select id, proxy_id, status, runner_id, slept_on from deployments where id = $1", [id]))[0]!;
const asleep = (id: string) => waitFor(`${id} asleep`, async () => ((await row(id)).status === "sleeping" ? row(id) : undefined), 30_000);

async function echo(id: string, key: string, message: string): Promise<string> {
  const client = await sdkClient(mcpUrl(c.publicUrl, (await row(id)).proxy_id), key);
  try {
    return textOf(await client.callTool({ name: "echo", arguments: { message } }));
  } finally {
    await client.close();
  }
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
    env: { AUTH_RATE_LIMIT: "off", GATEWAY_RATE_FREE: "0", DEPLOY_IDLE_MS: "2000" },
  });
  for (const [i, u] of users.entries()) keys.set(u, await userWithKey(c, c.member(i ? "gw-2" : "gw-1"), `${u}@example.com`));
  ids = await Promise.all(users.map((u) => deployFixture(c, keys.get(u)!, `${u}/fixture`, repo.url)));
  await waitAllRunning(c, users.length, 90_000);
}, 180_000);

afterAll(async () => {
  await sampler?.stop();
  await c?.close();
  await repo?.cleanup();
});

describe("sleeping in a cluster", () => {
  it("sleeps on its runner, wakes through any gateway, and wakes on the other runner once the one it slept on is killed", async () => {
    const id = ids[0]!;
    const key = keys.get("ella")!;
    const slept = await asleep(id);
    expect(slept.runner_id).toBeNull();
    expect(["runner-a", "runner-b"]).toContain(slept.slept_on);

    expect(await echo(id, key, "woken")).toBe("woken");
    const woke = await row(id);
    expect(woke.status).toBe("running");
    // Its volume is where it slept: the wake went back there.
    expect(woke.runner_id).toBe(slept.slept_on);

    const again = await asleep(id);
    const victim = c.member(again.slept_on!);
    victim.proc.child.kill("SIGKILL");
    await waitFor(
      "the killed runner gone",
      async () => victim.proc.child.exitCode !== null || victim.proc.child.signalCode !== null || undefined,
      10_000,
    );
    expect(await echo(id, key, "elsewhere")).toBe("elsewhere");
    const moved = await row(id);
    expect(moved.status).toBe("running");
    expect(moved.runner_id).not.toBe(victim.name);
    await victim.restart();
  }, 120_000);

  it("20 concurrent first requests through both gateways start it once", async () => {
    const id = ids[1]!;
    const key = keys.get("finn")!;
    const slept = await asleep(id);
    const gateways = [c.member("gw-1"), c.member("gw-2")];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        raw(`${gateways[i % 2]!.url}/${slept.proxy_id}/mcp`, {
          headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT, host: new URL(c.publicUrl).host },
          body: {
            jsonrpc: "2.0",
            id: i,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `c${i}`, version: "1" } },
          },
        }),
      ),
    );
    expect(
      answers.map((a) => `${a.status}`),
      answers.map((a) => a.body).join("\n"),
    ).toEqual(Array(20).fill("200"));
    expect((await row(id)).status).toBe("running");
    // Never two server processes for one deployment, at any moment of this file.
    const r = await sampler.report();
    expect(r.overlaps.filter((o) => ids.includes(o.id))).toEqual([]);
    for (const d of ids) expect(r.max[d] ?? 0, d).toBeLessThanOrEqual(1);
  }, 120_000);
});
