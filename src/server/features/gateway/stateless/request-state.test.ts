import { describe, expect, it, vi } from "vitest";
import { RequestStates } from "./request-state.js";

describe("requestState (sealed)", () => {
  it("opens to what was sealed, with this process's key only", () => {
    const states = new RequestStates(60_000);
    const sealed = states.seal({ call: "c7", round: 2 });
    expect(states.open(sealed)).toEqual({ call: "c7", round: 2 });
    expect(new RequestStates(60_000).open(sealed)).toBeUndefined();
  });

  it("refuses an altered, forged, oversized or expired state", () => {
    const states = new RequestStates(1_000);
    const sealed = states.seal({ call: "c1", round: 1 });
    const [v, payload, mac] = sealed.split(".");
    const other = Buffer.from(JSON.stringify({ c: "c2", r: 1, x: Date.now() + 60_000 })).toString("base64url");
    for (const bad of [
      `${v}.${other}.${mac}`,
      `${v}.${payload}.${mac!.slice(0, -1)}${mac!.endsWith("A") ? "B" : "A"}`,
      `v2.${payload}.${mac}`,
      `${sealed}.x`,
      "x".repeat(5000),
      42,
      null,
    ])
      expect(states.open(bad)).toBeUndefined();
    vi.useFakeTimers({ now: Date.now() + 2_000 });
    try {
      expect(states.open(sealed)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
