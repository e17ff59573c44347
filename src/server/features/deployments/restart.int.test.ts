// Restart and Edit keys (docs/product.md#my-deployments): the same deployment starts again, with new
// keys when given; its URL, tool selection, grants and log stay, and it is not a deploy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser, type Client, type TestApp } from "~support/app.js";
import { startDeploymentsApp, toolText, type DeploymentsApp } from "~support/deployments-app.js";
import { alive, waitForStatus } from "~support/deployments.js";
import { waitFor } from "~support/wait.js";
import { DEPLOY_TEXT, SLEEP_TEXT, type DeploymentView } from "~/shared/deployments.js";

let t: TestApp;
let deployFixture: DeploymentsApp["deployFixture"];
let app: DeploymentsApp | undefined;

beforeAll(async () => {
  app = await startDeploymentsApp();
  ({ t, deployFixture } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** Registers `<username>/<name>`, an owned server that asks for the key API_KEY (its connection's config says so). */
async function registerWithKey(c: Client & { id: string }, qn: string) {
  const r = await c.post("/api/servers", {
    qualifiedName: qn,
    displayName: "Keyed",
    description: "A server that needs a key",
    repositoryUrl: "https://example.com/fixture/repo",
    keywords: "test",
    connections: [
      {
        type: "http",
        url: "https://example.com/mcp",
        configSchema: { type: "object", required: ["apiKey"], properties: { apiKey: { type: "string", title: "API key" } } },
      },
    ],
  });
  expect(r.status, await r.clone().text()).toBe(201);
}

const row = async (id: string) =>
  (await t.db.database.pool.query("select pid, proxy_id, status, fence from deployments where id = $1", [id])).rows[0] as {
    pid: number | null;
    proxy_id: string;
    status: string;
    fence: string;
  };
const deploysThisMonth = async (userId: string) =>
  ((await t.db.database.pool.query("select count(*)::int as n from deploy_actions where user_id = $1", [userId])).rows[0] as { n: number })
    .n;
const envOf = async (id: string, name: string) =>
  toolText(await t.runtime.runner.client(id)!.callTool({ name: "get_env", arguments: { name } }));

/** Waits until the deployment runs under a process other than `oldPid`. */
async function restarted(c: Client, serverId: string, id: string, oldPid: number): Promise<number> {
  const again = async () => {
    const d = await waitForStatus(c, serverId, "running", 60_000);
    const r = await row(id);
    return d.id === id && r.pid && r.pid !== oldPid ? r.pid : undefined;
  };
  return waitFor("the deployment to start again", again, 60_000);
}

describe("Edit keys", () => {
  it("re-seals the keys and restarts in place: same URL, tool selection and request log; not a deploy", async () => {
    const c = await signedInUser(t, "keys@example.com");
    await registerWithKey(c, "keys/keyed");
    const first = await deployFixture(c, "keys/keyed", { API_KEY: "old-secret" });
    const running = await waitForStatus(c, "keys/keyed", "running", 60_000);
    expect(await envOf(running.id, "API_KEY")).toBe("old-secret");
    expect((await c.put(`/api/deployments/${running.id}/tools`, { hidden: ["add"] })).status).toBe(200);
    const oldPid = (await row(running.id)).pid!;
    const deploys = await deploysThisMonth(c.id);

    const r = await c.put(`/api/deployments/${running.id}/env`, { env: { API_KEY: "new-secret" } });
    expect(r.status, await r.clone().text()).toBe(202);
    const body = (await r.json()) as { success: boolean; message: string; deploymentInfo: DeploymentView };
    expect(body).toMatchObject({ success: true, message: DEPLOY_TEXT.keysSaved });
    expect(body.deploymentInfo).toMatchObject({
      id: first.id,
      url: first.url,
      proxy_id: first.proxy_id,
      status: "queued",
      hidden_tools: ["add"],
    });

    const pid = await restarted(c, "keys/keyed", running.id, oldPid);
    expect(alive(oldPid)).toBe(false);
    expect(alive(pid)).toBe(true);
    expect(await envOf(running.id, "API_KEY")).toBe("new-secret");
    const [after] = ((await (await c.get("/api/deployments/server/keys/keyed")).json()) as { deployments: DeploymentView[] }).deployments;
    expect(after).toMatchObject({ id: first.id, url: first.url, hidden_tools: ["add"], restarts: 0 });
    expect(await deploysThisMonth(c.id)).toBe(deploys);

    // A key left empty keeps its value; the stored keys are sealed, never the plain value.
    const oldPid2 = pid;
    expect((await c.put(`/api/deployments/${running.id}/env`, { env: { API_KEY: "" } })).status).toBe(202);
    await restarted(c, "keys/keyed", running.id, oldPid2);
    expect(await envOf(running.id, "API_KEY")).toBe("new-secret");
    const sealed = (await t.db.database.pool.query("select secrets from deployments where id = $1", [running.id])).rows[0] as {
      secrets: string;
    };
    expect(sealed.secrets).not.toContain("new-secret");

    // The audit log says who edited which keys of which deployment, and never a value.
    const audit = (
      await t.db.database.pool.query("select actor_id, action, target, detail from audit_log where target = $1 order by id", [running.id])
    ).rows as { actor_id: string; action: string; target: string; detail: { keys?: string[] } }[];
    expect(audit.filter((a) => a.action === "deployment.edit_keys").map((a) => [a.actor_id, a.detail.keys])).toEqual([
      [c.id, ["API_KEY"]],
      [c.id, ["API_KEY"]],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/new-secret|old-secret/);
  }, 180_000);

  it("refused input changes nothing: a bad name, a reserved one, another user's deployment", async () => {
    const c = await signedInUser(t, "careful@example.com");
    await registerWithKey(c, "careful/keyed");
    await deployFixture(c, "careful/keyed", { API_KEY: "kept" });
    const d = await waitForStatus(c, "careful/keyed", "running", 60_000);
    const before = await row(d.id);

    const bad = await c.put(`/api/deployments/${d.id}/env`, { env: { "not a name": "x" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain(DEPLOY_TEXT.badEnvName("not a name"));
    const reserved = await c.put(`/api/deployments/${d.id}/env`, { env: { LD_PRELOAD: "/tmp/x.so" } });
    expect(reserved.status).toBe(400);
    expect(((await reserved.json()) as { error: string }).error).toContain(DEPLOY_TEXT.reservedEnv("LD_PRELOAD"));
    expect((await c.put(`/api/deployments/${d.id}/env`, "not json at all")).status).toBe(400);

    const mallory = await signedInUser(t, "mallory@example.com");
    for (const res of [
      await mallory.put(`/api/deployments/${d.id}/env`, { env: { API_KEY: "stolen" } }),
      await mallory.post(`/api/deployments/${d.id}/restart`, {}),
    ]) {
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe(DEPLOY_TEXT.notFound);
    }
    expect((await mallory.post("/api/deployments/not-a-uuid/restart", {})).status).toBe(404);

    // The same process, the same keys, the same placement.
    expect(await row(d.id)).toEqual(before);
    expect(await envOf(d.id, "API_KEY")).toBe("kept");
  }, 120_000);
});

describe("Restart", () => {
  it("starts the same deployment again without counting a deploy; a failed one needs a free running slot", async () => {
    const c = await signedInUser(t, "restart@example.com");
    await registerWithKey(c, "restart/healthy");
    await registerWithKey(c, "restart/broken");
    // Free allows 1 running and 3 deploys a month: this one fails at start and holds no slot.
    await deployFixture(c, "restart/broken", { API_KEY: "k", FIXTURE_EXIT_ON_START: "1" });
    const broken = await waitForStatus(c, "restart/broken", "failed", 60_000);
    await deployFixture(c, "restart/healthy", { API_KEY: "k" });
    const healthy = await waitForStatus(c, "restart/healthy", "running", 60_000);
    expect(await deploysThisMonth(c.id)).toBe(2);

    // Three restarts of the running one: all allowed, none a deploy.
    let pid = (await row(healthy.id)).pid!;
    for (let i = 0; i < 3; i++) {
      const r = await c.post(`/api/deployments/${healthy.id}/restart`, {});
      expect(r.status, await r.clone().text()).toBe(202);
      expect(((await r.json()) as { message: string }).message).toBe(DEPLOY_TEXT.restarted);
      pid = await restarted(c, "restart/healthy", healthy.id, pid);
    }
    expect(await deploysThisMonth(c.id)).toBe(2);

    // The failed one would take a second running slot.
    const refused = await c.post(`/api/deployments/${broken.id}/restart`, {});
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(SLEEP_TEXT.noRoom("Free", 1));
    expect((await row(broken.id)).status).toBe("failed");

    // Once the healthy one is stopped, it may start again (and fails again, as its keys say).
    expect((await c.del(`/api/deployments/${healthy.id}`)).status).toBe(200);
    expect((await c.post(`/api/deployments/${broken.id}/restart`, {})).status).toBe(202);
    const again = await waitForStatus(c, "restart/broken", "failed", 60_000);
    expect(again.id).toBe(broken.id);
    expect(await deploysThisMonth(c.id)).toBe(2);
  }, 240_000);
});

describe("Restarts on top of each other", () => {
  it("four restarts sent at once leave one running process with the last keys, never a deployment stuck in 'installing'", async () => {
    const c = await signedInUser(t, "overlap@example.com");
    await registerWithKey(c, "overlap/stacked");
    await deployFixture(c, "overlap/stacked", { API_KEY: "first" });
    const d = await waitForStatus(c, "overlap/stacked", "running", 60_000);
    const before = (await row(d.id)).pid!;

    // Every restart stops the process the one before it was starting: what must come out is one
    // deployment running one process, whatever order the stops and starts met each other in.
    // (Four, and two edits below: the default DEPLOY_RESTARTS_PER_MINUTE of 6 allows them all.)
    const answers = await Promise.all(Array.from({ length: 4 }, () => c.post(`/api/deployments/${d.id}/restart`, {})));
    expect(answers.map((a) => a.status)).toEqual(Array(4).fill(202));
    const pid = await restarted(c, "overlap/stacked", d.id, before);
    expect(alive(before)).toBe(false);
    expect(alive(pid)).toBe(true);
    expect(await envOf(d.id, "API_KEY")).toBe("first");
    // It stays so: no late start of a superseded restart replaces or doubles it.
    await new Promise((r) => setTimeout(r, 1500));
    const settled = await row(d.id);
    expect(settled.status).toBe("running");
    expect(settled.pid).toBe(pid);

    // Edit keys at once with two values: the row and the process agree on one of them.
    const edits = await Promise.all(["second", "third"].map((v) => c.put(`/api/deployments/${d.id}/env`, { env: { API_KEY: v } })));
    expect(edits.map((e) => e.status)).toEqual([202, 202]);
    await restarted(c, "overlap/stacked", d.id, pid);
    const agreed = await waitFor(
      "the running process has the keys the row holds",
      async () => {
        const now = (await t.db.database.pool.query("select secrets, status, pid from deployments where id = $1", [d.id])).rows[0] as {
          secrets: string;
          status: string;
          pid: number | null;
        };
        if (now.status !== "running" || !now.pid) return undefined;
        const sealedKey = t.box.open(now.secrets).API_KEY;
        const running = await envOf(d.id, "API_KEY").catch(() => undefined);
        return running === sealedKey ? { key: running, pid: now.pid } : undefined;
      },
      60_000,
    );
    expect(["second", "third"]).toContain(agreed.key);
    expect(alive(agreed.pid)).toBe(true);
  }, 180_000);
});

describe("Restarts a minute", () => {
  // Two a minute here, so the budget is spent by restarts that each finish before the next: what
  // is tested is the limit, not how the platform copes with restarts on top of each other.
  let limited: DeploymentsApp | undefined;
  beforeAll(async () => {
    limited = await startDeploymentsApp({ DEPLOY_RESTARTS_PER_MINUTE: "2" });
  }, 120_000);
  afterAll(async () => {
    await limited?.close();
  });

  it("a loop of restarts is cut off at DEPLOY_RESTARTS_PER_MINUTE, Edit keys included; refused requests and other users use none of it", async () => {
    const lt = limited!.t;
    const rowOf = async (id: string) =>
      (await lt.db.database.pool.query("select pid from deployments where id = $1", [id])).rows[0] as { pid: number | null };
    const c = await signedInUser(lt, "looper@example.com");
    await registerWithKey(c, "looper/looped");
    await limited!.deployFixture(c, "looper/looped", { API_KEY: "k" });
    const d = await waitForStatus(c, "looper/looped", "running", 60_000);

    // Requests that restart nothing spend none of the owner's budget: another user's, refused keys.
    const mallory = await signedInUser(lt, "budget-thief@example.com");
    for (let i = 0; i < 8; i++) expect((await mallory.post(`/api/deployments/${d.id}/restart`, {})).status).toBe(404);
    for (let i = 0; i < 8; i++) expect((await c.put(`/api/deployments/${d.id}/env`, { env: { "not a name": "x" } })).status).toBe(400);

    // The budget: two restarts, each back to running under a new process.
    let pid = (await rowOf(d.id)).pid;
    for (let i = 0; i < 2; i++) {
      expect((await c.post(`/api/deployments/${d.id}/restart`, {})).status).toBe(202);
      pid = await waitFor(
        "the restarted process",
        async () => {
          const [now] = await Promise.all([rowOf(d.id), waitForStatus(c, "looper/looped", "running", 60_000)]);
          return now.pid && now.pid !== pid ? now.pid : undefined;
        },
        60_000,
      );
    }

    // Then a loop of them, at once: every one is told to wait, and nothing restarts.
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.post(`/api/deployments/${d.id}/restart`, {})));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(429));
    for (const a of answers) {
      const { error } = (await a.json()) as { error: string };
      const seconds = Number(/in (\d+) seconds/.exec(error)?.[1]);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(error).toBe(DEPLOY_TEXT.tooManyRestarts(seconds));
    }
    // Edit keys restarts too: the same budget, and the refused one changes nothing.
    const keys = await c.put(`/api/deployments/${d.id}/env`, { env: { API_KEY: "new" } });
    expect(keys.status).toBe(429);
    expect(((await keys.json()) as { error: string }).error).toMatch(/^Too many restarts of this deployment: try again in \d+ seconds\.$/);
    expect((await rowOf(d.id)).pid).toBe(pid);
    expect((await waitForStatus(c, "looper/looped", "running", 10_000)).id).toBe(d.id);
    expect(toolText(await lt.runtime.runner.client(d.id)!.callTool({ name: "get_env", arguments: { name: "API_KEY" } }))).toBe("k");
  }, 180_000);
});
