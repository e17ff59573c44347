import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { connect, type Database } from "../db/client.js";
import { RESYNC } from "./bus.js";
import { PgBus } from "./pg-bus.js";

// Two processes' buses, each with its own pool, on one real PostgreSQL database.

let t: TestDatabase;
let other: Database;
const buses: PgBus[] = [];

function bus(database: Database, maxBackoffMs = 200): PgBus {
  const b = new PgBus(database.pool, { maxBackoffMs });
  buses.push(b);
  return b;
}

/** Cuts the bus's listening connection from the server's side, as a restarting database or a failover does. */
async function kill(b: PgBus): Promise<void> {
  const r = await t.database.pool.query("select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1", [
    `switchboard-bus ${b.origin}`,
  ]);
  expect(r.rows).toEqual([{ ok: true }]);
}

function inbox(b: PgBus, topic: string) {
  const got: string[] = [];
  b.subscribe(topic, (p) => got.push(p));
  return got;
}

/** Two processes' buses, both listening. */
async function listeningPair(): Promise<[PgBus, PgBus]> {
  const a = bus(t.database);
  const b = bus(other);
  await a.listen();
  await b.listen();
  return [a, b];
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  t = await createTestDatabase();
  other = connect(t.url, { max: 2 });
});
afterAll(async () => {
  for (const b of buses) await b.close();
  await other?.close();
  await t?.drop();
});

describe("PgBus", () => {
  it("delivers to the publisher's own subscribers at once, and settles once every other process has run its subscribers", async () => {
    const a = bus(t.database);
    const b = bus(other);
    const c = bus(other);
    for (const x of [a, b, c]) await x.listen();
    const atA = inbox(a, "news");
    const atB = inbox(b, "news");
    const atC = inbox(c, "news");
    const sent = a.publish("news", "hello");
    expect(atA).toEqual(["hello"]);
    await sent;
    // No waiting here: the publish settled only after both receipts came back.
    expect(atB).toEqual(["hello"]);
    expect(atC).toEqual(["hello"]);
    // PostgreSQL echoes the message to the publisher too: it is not delivered twice.
    await new Promise((r) => setTimeout(r, 100));
    expect(atA).toEqual(["hello"]);
    expect(inbox(b, "other")).toEqual([]);
  });

  it("settle() waits for what was published inside it, even when nobody awaited the publish", async () => {
    const [a, b] = await listeningPair();
    const atB = inbox(b, "news");
    await a.settle(async () => {
      void a.publish("news", "fire and forget");
    });
    expect(atB).toEqual(["fire and forget"]);
  });

  it("settle() still follows a write that outlives another one settled meanwhile, and the next write after both", async () => {
    const [a, b] = await listeningPair();
    const atB = inbox(b, "overlap");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = a.settle(async () => {
      void a.publish("overlap", "first");
    });
    const second = a.settle(async () => {
      await gate;
      void a.publish("overlap", "second");
    });
    await first;
    release();
    await second;
    expect(atB).toEqual(["first", "second"]);
    await a.settle(async () => {
      await new Promise((r) => setTimeout(r, 5));
      void a.publish("overlap", "third");
    });
    expect(atB).toEqual(["first", "second", "third"]);
  });

  it("gives up on a listener that never confirms after the time limit, and does not wait for it again", async () => {
    const a = new PgBus(t.database.pool, { ackTimeoutMs: 300 });
    buses.push(a);
    await a.listen();
    // Looks like a bus to the others (same channel, same kind of name) but never answers: a hung process.
    const hung = new pg.Client({ connectionString: t.url, application_name: "switchboard-bus 00000000deadbeef" });
    await hung.connect();
    await hung.query("listen switchboard");
    try {
      let t0 = Date.now();
      await a.publish("news", "one");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
      t0 = Date.now();
      await a.publish("news", "two");
      expect(Date.now() - t0).toBeLessThan(250);
    } finally {
      await hung.end();
    }
  });

  it("a process's first message after start-up is heard by a process that was already listening", async () => {
    const a = bus(t.database);
    const b = bus(other);
    await b.listen();
    const atB = inbox(b, "news");
    // A bus that does not listen (the CLI's) cannot hear receipts: it sends and moves on.
    await a.publish("news", "from a bus that never listens");
    await until(() => atB.includes("from a bus that never listens"));
  });

  it("sends a payload too big for NOTIFY as 'start over', and the full one to its own subscribers", async () => {
    const [a, b] = await listeningPair();
    const atA = inbox(a, "big");
    const atB = inbox(b, "big");
    const big = "x".repeat(10_000);
    await a.publish("big", big);
    await until(() => atB.length > 0);
    expect(atB).toEqual([RESYNC]);
    expect(atA).toEqual([big]);
  });

  it("reconnects after its connection is killed, tells every subscriber to start over, and hears messages again", async () => {
    const [a, b] = await listeningPair();
    const news = inbox(b, "news");
    const keys = inbox(b, "keys");
    await kill(b);
    await until(() => news.includes(RESYNC) && keys.includes(RESYNC));
    expect(b.connected).toBe(true);
    expect(news).toEqual([RESYNC]);
    expect(keys).toEqual([RESYNC]);
    await a.publish("news", "after the gap");
    await until(() => news.includes("after the gap"));
  });

  it("keeps trying with back-off while the database cannot be reached, and starts over once it can", async () => {
    const a = bus(t.database);
    await a.listen();
    let reachable = false;
    let attempts = 0;
    const b = new PgBus(other.pool, {
      maxBackoffMs: 100,
      connect: (name) => {
        attempts++;
        // Port 1 on loopback: nothing listens, so the connection is refused at once.
        return new pg.Client({ connectionString: reachable ? t.url : "postgres://postgres@127.0.0.1:1/none", application_name: name });
      },
    });
    buses.push(b);
    const news = inbox(b, "news");
    await b.listen(); // does not throw: the process starts, and the bus catches up later
    expect(b.connected).toBe(false);
    await until(() => attempts >= 4);
    expect(b.connected).toBe(false);
    reachable = true;
    await until(() => b.connected);
    expect(news).toEqual([RESYNC]);
    await a.publish("news", "now heard");
    await until(() => news.includes("now heard"));
  });

  it("close() ends its connection and later publishes stay in the process", async () => {
    const b = bus(other);
    await b.listen();
    expect(
      (
        await t.database.pool.query("select count(*)::int as n from pg_stat_activity where application_name = $1", [
          `switchboard-bus ${b.origin}`,
        ])
      ).rows[0].n,
    ).toBe(1);
    await b.close();
    await until(() => !b.connected);
    const mine = inbox(b, "news");
    await b.publish("news", "local");
    expect(mine).toEqual(["local"]);
    // The server notices the client's goodbye shortly after.
    const deadline = Date.now() + 2000;
    let n = 1;
    while (n > 0 && Date.now() < deadline) {
      n = (
        await t.database.pool.query("select count(*)::int as n from pg_stat_activity where application_name = $1", [
          `switchboard-bus ${b.origin}`,
        ])
      ).rows[0].n;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(n).toBe(0);
  });
});
