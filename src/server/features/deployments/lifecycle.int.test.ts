// The Runner seam, proved with a second implementation: a runner the test scripts (as a runner on
// another machine would report over a wire). Deployments must turn whatever a runner reports into
// the rows owners see, on a real database, without knowing which runner it is.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { DEPLOY_TEXT, type SandboxInfo } from "~/shared/deployments.js";
import { profiles, user } from "../../db/schema.js";
import { createLogger } from "../../log.js";
import type { DeploymentSpec, McpChannel, Runner, RunnerEvent, RunnerEvents } from "../runtime/runner.js";
import { DeploymentLifecycle } from "./lifecycle.js";
import { deploymentListing, publicListing } from "./definitions/listings.js";
import { hostingSummary } from "./hosting-repo.js";
import { findDeployment, reserveDeployment, type DeploymentRow } from "./repo.js";
import { registerRunner } from "./placement/placement.js";
import { RunnerAgent } from "./runner-agent.js";
import { SecretBox } from "./secret-box.js";
import { deploymentResources } from "../oauth/index.js";

class ScriptedRunner implements Runner {
  sandbox: SandboxInfo = {
    kind: "bwrap",
    network: "egress",
    layer: "a scripted runner",
    guarantees: [],
    complete: true,
    warnings: [],
    notes: [],
  };
  started: DeploymentSpec[] = [];
  stopped: string[] = [];
  reaped: number[] = [];
  private events: RunnerEvents = async () => {};
  onEvents(handler: RunnerEvents) {
    this.events = handler;
  }
  /** What the runner reports, as a remote runner's messages would arrive. */
  report(id: string, e: RunnerEvent) {
    return this.events(id, e);
  }
  start(spec: DeploymentSpec) {
    this.started.push(spec);
  }
  async stop(id: string) {
    this.stopped.push(id);
  }
  runs(id: string) {
    return this.started.some((s) => s.id === id) && !this.stopped.includes(id);
  }
  channel(): McpChannel | undefined {
    return undefined;
  }
  logs() {
    return null;
  }
  rssBytes() {
    return 0;
  }
  outputStats() {
    return undefined;
  }
  reap(pid: number) {
    this.reaped.push(pid);
  }
  async shutdown() {}
}

let db: TestDatabase;
const box = new SecretBox("k".repeat(40));
const log = createLogger({ level: "silent", pretty: false });
let runner: ScriptedRunner;
let lifecycle: DeploymentLifecycle;
let agent: RunnerAgent;

async function person(admin = false): Promise<string> {
  const id = randomUUID();
  await db.database.db.insert(user).values({ id, name: "P", email: `${id}@example.com`, emailVerified: true });
  await db.database.db
    .insert(profiles)
    .values({ id, email: `${id}@example.com`, username: `u${id.slice(0, 8)}`, fullName: "P", isAdmin: admin });
  return id;
}

async function deployment(userId: string, ref: string, env: Record<string, string> = {}): Promise<DeploymentRow> {
  const r = await reserveDeployment(
    db.database.db,
    { maxRunning: 10, maxKept: 10 },
    {
      id: randomUUID(),
      userId,
      serverKind: "catalog",
      serverRef: ref,
      source: { kind: "npm", package: "pkg", version: null, args: [] },
      secrets: box.seal(env),
      proxyId: randomBytes(16).toString("hex"),
    },
    deploymentResources("http://localhost:3000"),
  );
  if (!r.ok) throw new Error(r.reason);
  return r.row;
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(async () => {
  runner = new ScriptedRunner();
  const noCalls = { stop: async () => {}, logs: async () => null, wake: () => {} };
  agent = new RunnerAgent({
    db: db.database.db,
    log,
    box,
    runner,
    id: `runner-${randomUUID()}`,
    url: "http://127.0.0.1:1",
    capacityMb: 100_000,
    memoryMb: 512,
    leaseMs: 15_000,
    hostingPolicy: "admins",
    alone: true,
    claim: async () => true,
    wake: () => {},
    onWake: () => () => {},
  });
  lifecycle = new DeploymentLifecycle({
    db: db.database.db,
    log,
    agent,
    calls: noCalls,
    memoryMb: 512,
    leaseMs: 15_000,
    resources: deploymentResources("http://localhost:3000"),
  });
  await registerRunner(
    db.database.db,
    { id: agent.id, instance: agent.instance, url: agent.url, capacityMb: 100_000, sandbox: runner.sandbox },
    { leaseMs: 15_000 },
  );
});
afterEach(async () => {
  await lifecycle.shutdown();
  await db.database.pool.query("delete from runners");
});

describe("deployment state from a runner's events", () => {
  it("hands the runner the opened keys, then records each step it reports, the listing included", async () => {
    const d = await deployment(await person(), "steps", { API_TOKEN: "t-123" });
    await lifecycle.launch(d);
    expect(runner.started).toEqual([
      { id: d.id, source: { kind: "npm", package: "pkg", version: null, args: [] }, env: { API_TOKEN: "t-123" } },
    ]);
    await runner.report(d.id, { type: "installing" });
    expect((await findDeployment(db.database.db, d.id))!.status).toBe("installing");
    await runner.report(d.id, { type: "starting" });
    await runner.report(d.id, { type: "spawned", pid: 4242, pidStart: "99" });
    expect(await findDeployment(db.database.db, d.id)).toMatchObject({ status: "starting", pid: 4242, pidStart: "99" });
    await runner.report(d.id, {
      type: "running",
      listing: {
        tools: [{ name: "echo", inputSchema: { type: "object" } }],
        prompts: [],
        resources: [],
        resourceTemplates: [],
        complete: { tools: true, prompts: true, resourceTemplates: true },
      },
    });
    expect((await findDeployment(db.database.db, d.id))!.status).toBe("running");
    const summary = await hostingSummary(db.database.db, { kind: "catalog", ref: "steps" });
    expect(summary).toMatchObject({ running: true });
    // The listing is the deployment's own (its owner's view); a catalogue entry's public one waits for an admin.
    expect((await deploymentListing(db.database.db, d.id))?.tools).toEqual([{ name: "echo", inputSchema: { type: "object" } }]);
    expect(await publicListing(db.database.db, { kind: "catalog", ref: "steps" })).toBeUndefined();
  });

  it("counts each crash, says when it loops, and records a failure with its exit code", async () => {
    const d = await deployment(await person(), "crashes");
    await lifecycle.launch(d);
    const crash = (looping: boolean) =>
      runner.report(d.id, {
        type: "crashed",
        exit: { reason: "Exited with code 3", code: 3 },
        detail: "Exited with code 3; restarting in 1 s",
        restartInMs: 1000,
        looping,
      });
    await crash(false);
    expect(await findDeployment(db.database.db, d.id)).toMatchObject({ status: "crashed", restarts: 1, exitCode: 3, pid: null });
    await crash(true);
    expect(await findDeployment(db.database.db, d.id)).toMatchObject({ status: "crash_looping", restarts: 2 });
    await runner.report(d.id, { type: "failed", detail: "No answer to initialize within 30 s", code: null });
    expect(await findDeployment(db.database.db, d.id)).toMatchObject({
      status: "failed",
      statusDetail: "No answer to initialize within 30 s",
      exitCode: null,
    });
  });

  it("stops a deployment whose row is gone, and what it still reports writes nothing", async () => {
    const d = await deployment(await person(), "gone");
    await lifecycle.launch(d);
    await lifecycle.stop(d.id);
    expect(runner.stopped).toEqual([d.id]);
    await runner.report(d.id, {
      type: "crashed",
      exit: { reason: "Killed by SIGKILL", code: null },
      detail: "Killed",
      restartInMs: 500,
      looping: false,
    });
    expect(await findDeployment(db.database.db, d.id)).toBeUndefined();
  });

  it("a runner that lost its lease (the deployment was placed again elsewhere) writes nothing and stops its process", async () => {
    const d = await deployment(await person(), "fenced");
    await lifecycle.launch(d);
    await runner.report(d.id, { type: "spawned", pid: 5151, pidStart: "1" });
    const before = (await findDeployment(db.database.db, d.id))!;
    expect(before).toMatchObject({ runnerId: agent.id, pid: 5151 });
    // Another runner took it over: a new placement with a higher fencing number.
    await db.database.pool.query(
      "update deployments set runner_id = 'elsewhere', fence = fence + 1, status = 'starting', pid = null where id = $1",
      [d.id],
    );
    await runner.report(d.id, { type: "running", listing: null });
    await runner.report(d.id, {
      type: "crashed",
      exit: { reason: "Exited with code 1", code: 1 },
      detail: "x",
      restartInMs: 100,
      looping: false,
    });
    expect(await findDeployment(db.database.db, d.id)).toMatchObject({
      runnerId: "elsewhere",
      fence: before.fence + 1,
      status: "starting",
      pid: null,
      restarts: 0,
    });
    expect(runner.stopped).toContain(d.id);
    expect(agent.holds(d.id)).toBe(false);
  });

  it("never starts a deployment whose keys cannot be opened, and says why", async () => {
    const d = await deployment(await person(), "bad-keys");
    await db.database.pool.query("update deployments set secrets = 'v1.tampered' where id = $1", [d.id]);
    await lifecycle.launch((await findDeployment(db.database.db, d.id))!);
    expect(runner.started.map((s) => s.id)).not.toContain(d.id);
    expect((await findDeployment(db.database.db, d.id))!).toMatchObject({
      status: "failed",
      statusDetail: expect.stringContaining("cannot be decrypted"),
    });
  });
});

describe("the lifecycle drives the runner", () => {
  it("after a restart, reaps what was recorded, starts what should run, and keeps non-admins' deployments down on an incomplete sandbox", async () => {
    const admin = await deployment(await person(true), "recover-admin");
    const other = await deployment(await person(false), "recover-other");
    await db.database.pool.query("update deployments set status = 'running', pid = 777, pid_start = '5' where id = $1", [admin.id]);
    runner.sandbox = { ...runner.sandbox, complete: false };
    expect(await lifecycle.recover()).toBeGreaterThanOrEqual(1);
    expect(runner.reaped).toContain(777);
    expect(runner.started.map((s) => s.id)).toContain(admin.id);
    expect(runner.started.map((s) => s.id)).not.toContain(other.id);
    expect(await findDeployment(db.database.db, other.id)).toMatchObject({ status: "failed", statusDetail: DEPLOY_TEXT.hostingClosed });
    expect((await findDeployment(db.database.db, admin.id))!.pid).toBeNull();
  });

  it("stops the newest deployments beyond a plan's limit, keeping their rows with the reason", async () => {
    const owner = await person();
    const oldest = await deployment(owner, "limit-1");
    const middle = await deployment(owner, "limit-2");
    const newest = await deployment(owner, "limit-3");
    expect(await lifecycle.usersBeyond({ maxRunning: 2, maxKept: 2 })).toContain(owner);
    expect(await lifecycle.usersBeyond({ maxRunning: 3, maxKept: 3 })).not.toContain(owner);
    expect(await lifecycle.stopBeyond(owner, { maxRunning: 1, maxKept: 1 }, "Over the plan")).toBe(2);
    expect(runner.stopped.sort()).toEqual([middle.id, newest.id].sort());
    expect(await findDeployment(db.database.db, newest.id)).toMatchObject({ status: "stopped", statusDetail: "Over the plan" });
    expect((await findDeployment(db.database.db, oldest.id))!.status).toBe("queued");
  });

  it("with sleeping, a lower plan stops what it does not keep and puts what it does not run to sleep", async () => {
    const owner = await person();
    const first = await deployment(owner, "sleepy-1");
    const second = await deployment(owner, "sleepy-2");
    const third = await deployment(owner, "sleepy-3");
    expect(await lifecycle.stopBeyond(owner, { maxRunning: 1, maxKept: 2 }, "Over the plan")).toBe(2);
    expect(await findDeployment(db.database.db, third.id)).toMatchObject({ status: "stopped", statusDetail: "Over the plan" });
    // Of the two kept, the least recently used sleeps (both never active: the older one), keeping its row.
    expect(await findDeployment(db.database.db, first.id)).toMatchObject({ status: "sleeping", runnerId: null });
    expect((await findDeployment(db.database.db, second.id))!.status).toBe("queued");
  });
});
