// Placement on a real database: spread over live runners by free reserved memory, never on a
// draining or silent runner, waiting (and saying so) without room, and conditional moves that a
// stale view cannot win.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import type { SandboxInfo } from "~/shared/deployments.js";
import { user } from "../../../db/schema.js";
import { assignedTo, heartbeat, place, registerRunner, setDraining } from "./placement.js";
import { findDeployment, reserveDeployment } from "../repo.js";
import { WAITING_FOR_RUNNER } from "../runner-agent.js";
import { deploymentResources } from "../../oauth/index.js";

const sandbox: SandboxInfo = { kind: "bwrap", network: "egress", layer: "test", guarantees: [], complete: true, warnings: [], notes: [] };
const LEASE = 15_000;
let db: TestDatabase;

async function deployment(): Promise<string> {
  const userId = randomUUID();
  await db.database.db.insert(user).values({ id: userId, name: "P", email: `${userId}@example.com`, emailVerified: true });
  const r = await reserveDeployment(
    db.database.db,
    { maxRunning: 10, maxKept: 10 },
    {
      id: randomUUID(),
      userId,
      serverKind: "catalog",
      serverRef: `s-${userId}`,
      source: { kind: "npm", package: "pkg", version: null, args: [] },
      secrets: "x",
      proxyId: randomBytes(16).toString("hex"),
    },
    deploymentResources("http://localhost:3000"),
  );
  if (!r.ok) throw new Error(r.reason);
  return r.row.id;
}

const put = (id: string, extra: { exclude?: string; onlyIf?: { runnerId: string | null; fence: number } } = {}) =>
  place(db.database.db, id, { memoryMb: 512, leaseMs: LEASE, waiting: WAITING_FOR_RUNNER, ...extra });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(async () => {
  await db.database.pool.query("delete from deployments; delete from runners");
});

describe("placing deployments on runners", () => {
  it("spreads them: each goes to the runner with the most free reserved memory", async () => {
    await registerRunner(
      db.database.db,
      { id: "big", instance: "one", url: "http://big:3100", capacityMb: 2048, sandbox },
      { leaseMs: LEASE },
    );
    await registerRunner(
      db.database.db,
      { id: "small", instance: "one", url: "http://small:3100", capacityMb: 1024, sandbox },
      { leaseMs: LEASE },
    );
    const where: string[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await put(await deployment());
      where.push(p && p !== "gone" ? p.runnerId : "none");
    }
    // big: 2048 -> 1536 -> 1024 (tie with small, big sorts first) ...; 4 fit on big, 2 on small, then nothing.
    expect(where.slice(0, 6).filter((r) => r === "big")).toHaveLength(4);
    expect(where.filter((r) => r === "small")).toHaveLength(2);
    expect(where[0]).toBe("big");
  });

  it("never places on a draining runner or one whose heartbeat is older than the lease", async () => {
    await registerRunner(
      db.database.db,
      { id: "draining", instance: "one", url: "http://d:3100", capacityMb: 8192, sandbox },
      { leaseMs: LEASE },
    );
    await setDraining(db.database.db, "draining");
    await registerRunner(
      db.database.db,
      { id: "silent", instance: "one", url: "http://s:3100", capacityMb: 8192, sandbox },
      { leaseMs: LEASE },
    );
    await db.database.pool.query("update runners set heartbeat_at = now() - interval '16 seconds' where id = 'silent'");
    await registerRunner(
      db.database.db,
      { id: "ok", instance: "one", url: "http://ok:3100", capacityMb: 1024, sandbox },
      { leaseMs: LEASE },
    );
    const p = await put(await deployment());
    expect(p).toMatchObject({ runnerId: "ok", url: "http://ok:3100" });
  });

  it("without room anywhere the deployment waits unplaced, saying so, and a later placement finds it a runner", async () => {
    await registerRunner(
      db.database.db,
      { id: "tiny", instance: "one", url: "http://t:3100", capacityMb: 512, sandbox },
      { leaseMs: LEASE },
    );
    const first = await deployment();
    const second = await deployment();
    expect(await put(first)).toMatchObject({ runnerId: "tiny" });
    expect(await put(second)).toBeUndefined();
    const waiting = (await findDeployment(db.database.db, second))!;
    expect(waiting).toMatchObject({ runnerId: null, status: "queued", statusDetail: WAITING_FOR_RUNNER });
    await registerRunner(
      db.database.db,
      { id: "new", instance: "one", url: "http://n:3100", capacityMb: 4096, sandbox },
      { leaseMs: LEASE },
    );
    expect(await put(second, { onlyIf: { runnerId: null, fence: waiting.fence } })).toMatchObject({ runnerId: "new" });
  });

  it("raises the fencing number on every placement, and a move based on a stale view changes nothing", async () => {
    await registerRunner(db.database.db, { id: "a", instance: "one", url: "http://a:3100", capacityMb: 4096, sandbox }, { leaseMs: LEASE });
    await registerRunner(db.database.db, { id: "b", instance: "one", url: "http://b:3100", capacityMb: 4096, sandbox }, { leaseMs: LEASE });
    const id = await deployment();
    const p1 = await put(id);
    if (!p1 || p1 === "gone") throw new Error("not placed");
    const p2 = await put(id, { exclude: p1.runnerId, onlyIf: { runnerId: p1.runnerId, fence: p1.fence } });
    if (!p2 || p2 === "gone") throw new Error("not moved");
    expect(p2.fence).toBe(p1.fence + 1);
    expect(p2.runnerId).not.toBe(p1.runnerId);
    // A second sweeper that still saw the first placement loses.
    expect(await put(id, { exclude: p1.runnerId, onlyIf: { runnerId: p1.runnerId, fence: p1.fence } })).toBe("gone");
    expect(await findDeployment(db.database.db, id)).toMatchObject({ runnerId: p2.runnerId, fence: p2.fence });
  });

  it("lets only one live process hold a runner's name; a takeover after the lease fences out the old holder", async () => {
    await registerRunner(db.database.db, { id: "r", instance: "old", url: "http://r:3100", capacityMb: 4096, sandbox }, { leaseMs: LEASE });
    const id = await deployment();
    const placed = await put(id);
    if (!placed || placed === "gone") throw new Error("not placed");
    expect((await assignedTo(db.database.db, "r", "old")).map((d) => d.id)).toEqual([id]);
    // A second process with the same name (a misconfiguration, a pod recreated elsewhere) waits while the first heartbeats.
    expect(
      await registerRunner(
        db.database.db,
        { id: "r", instance: "new", url: "http://r2:3100", capacityMb: 4096, sandbox },
        { leaseMs: LEASE },
      ),
    ).toEqual({ ok: false, heldBy: "old" });
    expect(await heartbeat(db.database.db, "r", "old")).toBe(true);
    // The first one falls silent past the lease: the name passes on, and every deployment's fence rises.
    await db.database.pool.query("update runners set heartbeat_at = now() - interval '16 seconds' where id = 'r'");
    expect(
      await registerRunner(
        db.database.db,
        { id: "r", instance: "new", url: "http://r2:3100", capacityMb: 4096, sandbox },
        { leaseMs: LEASE },
      ),
    ).toEqual({ ok: true });
    expect((await findDeployment(db.database.db, id))!.fence).toBe(placed.fence + 1);
    // The old holder, resumed, can neither heartbeat nor see anything to run.
    expect(await heartbeat(db.database.db, "r", "old")).toBe(false);
    expect(await assignedTo(db.database.db, "r", "old")).toEqual([]);
    expect((await assignedTo(db.database.db, "r", "new")).map((d) => d.id)).toEqual([id]);
  });

  it("prefers a runner whose sandbox holds every guarantee, even with less room", async () => {
    await registerRunner(
      db.database.db,
      { id: "roomy-incomplete", instance: "one", url: "http://i:3100", capacityMb: 8192, sandbox: { ...sandbox, complete: false } },
      { leaseMs: LEASE },
    );
    await registerRunner(
      db.database.db,
      { id: "complete", instance: "one", url: "http://c:3100", capacityMb: 1024, sandbox },
      { leaseMs: LEASE },
    );
    expect(await put(await deployment())).toMatchObject({ runnerId: "complete" });
    expect(await put(await deployment())).toMatchObject({ runnerId: "complete" });
    // Full: the incomplete one takes the rest (its runner lets only admins' code run there).
    expect(await put(await deployment())).toMatchObject({ runnerId: "roomy-incomplete" });
  });
});
