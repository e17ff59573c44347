import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { OneSession } from "./one-session.js";

describe("one upstream session, initialized once", () => {
  it("sends the first initialize and its notification on; answers later ones from its result and drops their notifications", () => {
    const s = new OneSession();
    const replies: JSONRPCMessage[] = [];
    const reply = (m: JSONRPCMessage) => replies.push(m);
    const init = (id: string | number, version: string) =>
      ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: version } }) as JSONRPCMessage;
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage;

    expect(s.intercept(init(0, "2025-11-25"), reply)).toBe(false);
    // Until the server answers, nothing is known: another initialize would go on too.
    s.seen({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-11-25", serverInfo: { name: "up" } } } as JSONRPCMessage);
    expect(s.intercept(initialized, reply)).toBe(false);

    expect(s.intercept(init("sbi1", "2025-06-18"), reply)).toBe(true);
    expect(replies).toEqual([{ jsonrpc: "2.0", id: "sbi1", result: { protocolVersion: "2025-11-25", serverInfo: { name: "up" } } }]);
    expect(s.intercept(initialized, reply)).toBe(true);
    // Everything else goes on as it is.
    expect(s.intercept({ jsonrpc: "2.0", id: 5, method: "tools/list" } as JSONRPCMessage, reply)).toBe(false);
  });

  it("a refused first initialize leaves the session to be initialized by the next one", () => {
    const s = new OneSession();
    const reply = () => undefined;
    expect(s.intercept({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} } as JSONRPCMessage, reply)).toBe(false);
    s.seen({ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "no" } } as JSONRPCMessage);
    expect(s.intercept({ jsonrpc: "2.0", id: 2, method: "initialize", params: {} } as JSONRPCMessage, reply)).toBe(false);
  });
});
