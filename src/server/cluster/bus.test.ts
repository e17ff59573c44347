import { describe, expect, it } from "vitest";
import type { Db } from "../db/client.js";
import { cached, connectCatalogCache, invalidateCatalog } from "../features/catalog/cache.js";
import { KeyRevocations } from "../features/api-keys/revocations.js";
import { LocalBus, RESYNC } from "./bus.js";

describe("LocalBus", () => {
  it("delivers to the topic's subscribers at once, and no more after unsubscribing", () => {
    const bus = new LocalBus();
    const got: string[] = [];
    const off = bus.subscribe("a", (p) => got.push(`a:${p}`));
    bus.subscribe("b", (p) => got.push(`b:${p}`));
    void bus.publish("a", "1");
    expect(got).toEqual(["a:1"]);
    off();
    void bus.publish("a", "2");
    void bus.publish("b");
    expect(got).toEqual(["a:1", "b:"]);
  });

  it("keeps delivering when one subscriber throws", () => {
    const bus = new LocalBus();
    const got: string[] = [];
    bus.subscribe("a", () => {
      throw new Error("broken subscriber");
    });
    bus.subscribe("a", (p) => got.push(p));
    void bus.publish("a", "x");
    expect(got).toEqual(["x"]);
  });
});

describe("KeyRevocations on a bus", () => {
  it("a revocation published by anyone on the bus bumps the generation and calls the listeners once", async () => {
    const bus = new LocalBus();
    const r = new KeyRevocations(bus);
    let calls = 0;
    r.subscribe(() => calls++);
    await r.revoked();
    expect(r.generation).toBe(1);
    expect(calls).toBe(1);
    // What another process's revocation (or a reconnect) looks like here.
    void bus.publish("revocations", RESYNC);
    expect(r.generation).toBe(2);
    expect(calls).toBe(2);
  });
});

describe("catalogue cache on a bus", () => {
  it("a message on the bus clears the cache, so the next read loads again", async () => {
    const db = {} as Db;
    const bus = new LocalBus();
    const disconnect = connectCatalogCache(db, bus);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    expect(await cached(db, "k", load)).toBe(1);
    expect(await cached(db, "k", load)).toBe(1);
    void bus.publish("catalog", RESYNC);
    expect(await cached(db, "k", load)).toBe(2);
    await invalidateCatalog(db);
    expect(await cached(db, "k", load)).toBe(3);
    disconnect();
    void bus.publish("catalog");
    expect(await cached(db, "k", load)).toBe(3);
  });

  it("a read that started before an invalidation is not stored after it", async () => {
    const db = {} as Db;
    const bus = new LocalBus();
    connectCatalogCache(db, bus);
    let release!: () => void;
    const slow = cached(db, "k", () => new Promise<string>((r) => (release = () => r("stale"))));
    void bus.publish("catalog");
    release();
    expect(await slow).toBe("stale");
    expect(await cached(db, "k", () => Promise.resolve("fresh"))).toBe("fresh");
  });
});
