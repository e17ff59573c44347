import { describe, expect, it } from "vitest";
import { LocalBus, RESYNC } from "./bus.js";
import { publish, signal, subscribe, TOPICS } from "./topics.js";

describe("cross-process messages (topics.ts)", () => {
  it("arrive as their schema says, with defaults filled in", async () => {
    const bus = new LocalBus();
    const got: unknown[] = [];
    subscribe(bus, TOPICS.exposure, (m) => got.push(m));
    await publish(bus, TOPICS.exposure, { id: "d1", proxyId: "p1" });
    await publish(bus, TOPICS.exposure, { id: "d2", proxyId: "p2", quiet: true });
    expect(got).toEqual([
      { id: "d1", proxyId: "p1", quiet: false },
      { id: "d2", proxyId: "p2", quiet: true },
    ]);
  });

  it("a gap in the bus, or a payload that is not the topic's, reaches subscribers as null: start over", async () => {
    const bus = new LocalBus();
    const got: unknown[] = [];
    subscribe(bus, TOPICS.exposure, (m) => got.push(m));
    for (const raw of [RESYNC, "{not json", JSON.stringify({ id: 1 }), "", JSON.stringify({ id: "x", proxyId: "" })])
      await bus.publish(TOPICS.exposure.name, raw);
    expect(got).toEqual([null, null, null, null, null]);
  });

  it("a publisher cannot send what the topic does not allow", () => {
    const bus = new LocalBus();
    expect(() => publish(bus, TOPICS.exposure, { id: "", proxyId: "p" })).toThrow();
  });

  it("signals carry nothing; each runner hears only its own wake-up", async () => {
    const bus = new LocalBus();
    const heard: string[] = [];
    subscribe(bus, TOPICS.catalog, (m) => heard.push(`catalog:${m}`));
    subscribe(bus, TOPICS.runnerWake("a"), () => heard.push("a"));
    subscribe(bus, TOPICS.runnerWake("b"), () => heard.push("b"));
    await signal(bus, TOPICS.catalog);
    await signal(bus, TOPICS.runnerWake("b"));
    expect(heard).toEqual(["catalog:true", "b"]);
  });
});
