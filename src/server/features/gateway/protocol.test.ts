import { describe, expect, it } from "vitest";
import { asMessage, capabilityFlags, isSupportedVersion, RPC } from "./protocol.js";

describe("gateway protocol", () => {
  it("uses the standard JSON-RPC error codes", () => {
    expect(RPC).toEqual({
      parseError: -32700,
      invalidRequest: -32600,
      invalidParams: -32602,
      methodNotFound: -32601,
      internal: -32603,
      serverError: -32000,
      sessionNotFound: -32001,
    });
  });

  it("takes one JSON-RPC 2.0 request, notification or answer, and nothing else", () => {
    expect(asMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeDefined();
    expect(asMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeDefined();
    expect(asMessage({ jsonrpc: "2.0", id: "a", result: {} })).toBeDefined();
    expect(asMessage({ jsonrpc: "2.0", id: "a", error: { code: 1, message: "x" } })).toBeDefined();
    for (const bad of [
      null,
      0,
      "text",
      [],
      { jsonrpc: "1.0", id: 1, method: "x" },
      { jsonrpc: "2.0", id: {}, method: "x" },
      { jsonrpc: "2.0", method: 5 },
      { jsonrpc: "2.0", method: "x", params: 3 },
      { jsonrpc: "2.0", result: {} },
      { jsonrpc: "2.0", id: 1 },
    ]) {
      expect(asMessage(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("speaks the revisions it lists", () => {
    expect(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].every(isSupportedVersion)).toBe(true);
    expect(isSupportedVersion("2024-10-07")).toBe(false);
  });

  it("keeps only the capability flags it routes by", () => {
    expect(capabilityFlags({ sampling: {}, roots: { listChanged: true }, experimental: {} })).toEqual({
      sampling: true,
      elicitation: false,
      roots: true,
    });
    expect(capabilityFlags("sampling")).toEqual({ sampling: false, elicitation: false, roots: false });
  });
});
