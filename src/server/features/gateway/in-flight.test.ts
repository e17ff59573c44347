import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { InFlight, InFlightTicket } from "./in-flight.js";

const MB = 1024 * 1024;
const req = () => ({}) as IncomingMessage;
const ticket = (t: InFlightTicket | string) => {
  if (typeof t === "string") throw new Error(`refused: ${t}`);
  return t;
};

describe("bytes in flight", () => {
  it("admits requests while they fit under the deployment's budget, then refuses before any body is read", () => {
    const f = new InFlight(8 * MB);
    const a = ticket(f.admit(req(), "d1", "k1", 4 * MB));
    ticket(f.admit(req(), "d1", "k2", 3 * MB));
    expect(f.admit(req(), "d1", "k3", 2 * MB)).toBe("deployment");
    expect(f.held("d1")).toBe(7 * MB);
    // Another deployment has its own budget.
    ticket(f.admit(req(), "d2", "k3", 2 * MB));
    // Once answered, the bytes are free again.
    a.release();
    expect(f.held("d1")).toBe(3 * MB);
    ticket(f.admit(req(), "d1", "k3", 2 * MB));
  });

  it("holds one credential to its budget across deployments", () => {
    const f = new InFlight(8 * MB);
    ticket(f.admit(req(), "d1", "key", 5 * MB));
    expect(f.admit(req(), "d2", "key", 5 * MB)).toBe("credential");
    ticket(f.admit(req(), "d2", "other", 5 * MB));
  });

  it("lets one request larger than the budget through alone, and nothing beside it", () => {
    const f = new InFlight(1 * MB);
    const big = ticket(f.admit(req(), "d1", "k1", 6 * MB));
    expect(f.admit(req(), "d1", "k1", 10)).toBe("deployment");
    big.release();
    ticket(f.admit(req(), "d1", "k1", 10));
  });

  it("counts a body without a declared size as it arrives, and refuses it once it no longer fits", () => {
    const f = new InFlight(1 * MB);
    ticket(f.admit(req(), "d1", "k1", 600 * 1024));
    const chunked = ticket(f.admit(req(), "d1", "k1", 0));
    expect(chunked.grow(300 * 1024)).toBeNull();
    expect(chunked.grow(300 * 1024)).toBe("deployment");
    expect(f.held("d1")).toBe(900 * 1024);
    // Refused while its body arrives: what it held is free at once, whatever its client still sends.
    chunked.end();
    expect(chunked.grow(300 * 1024)).toBeNull();
    expect(f.held("d1")).toBe(600 * 1024);
    chunked.release();
    expect(f.held("d1")).toBe(600 * 1024);
  });

  it("keeps a request in flight until every holder lets go (a legacy POST's answer comes on its stream), and releases once", () => {
    const f = new InFlight(8 * MB);
    const r = req();
    const t = ticket(f.admit(r, "d1", "k1", 2 * MB));
    expect(f.of(r)).toBe(t);
    const answered = t.hold();
    t.release(); // the 202 went out
    expect(f.held("d1")).toBe(2 * MB);
    answered();
    answered();
    t.release();
    expect(f.held("d1")).toBe(0);
  });
});
