import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { modernAnswer } from "./translate.js";
import { checkModern, decodeMcpName, isModernVersion, legacyParams, modernClaim } from "./envelope.js";
import type { Msg } from "../protocol.js";

// The 2026-07-28 request rules: which request is one, the order of the checks and the error each
// gets, what the hosted (older) server is sent, and what the client gets back.

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const envelope = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  ...extra,
});
const msg = (method: string, params: Record<string, unknown> = {}): Msg => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: { ...params, _meta: envelope(params._meta as Record<string, unknown>) },
});
const H = (method: string, extra: Record<string, string> = {}) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...extra,
});
const refusal = (r: ReturnType<typeof checkModern>) => ("refusal" in r ? [r.refusal.status, r.refusal.code] : "ok");

describe("2026-07-28 requests", () => {
  it("are the ones whose _meta claims the revision, or whose header names it or a later one", () => {
    expect(modernClaim(msg("tools/list"))).toBe("2026-07-28");
    expect(modernClaim({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeUndefined();
    expect(isModernVersion("2026-07-28")).toBe(true);
    expect(isModernVersion("2027-01-01")).toBe(true);
    expect(isModernVersion("2025-11-25")).toBe(false);
    expect(isModernVersion("garbage")).toBe(false);
  });

  it("are checked envelope first, then header against body, method, version, name, method table", () => {
    const caps = { tools: {}, prompts: {} };
    expect(refusal(checkModern(req(H("tools/list")), msg("tools/list"), caps))).toBe("ok");
    expect(refusal(checkModern(req(H("tools/list")), { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, caps))).toEqual([
      400, -32602,
    ]);
    expect(refusal(checkModern(req(H("initialize")), { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, caps))).toEqual([
      400, -32020,
    ]);
    expect(
      refusal(
        checkModern(
          req(H("tools/list")),
          { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } },
          caps,
        ),
      ),
    ).toEqual([400, -32602]);
    expect(
      refusal(checkModern(req(H("tools/list")), msg("tools/list", { _meta: { "io.modelcontextprotocol/logLevel": "loud" } }), caps)),
    ).toEqual([400, -32602]);
    expect(
      refusal(checkModern(req(H("tools/list")), msg("tools/list", { _meta: { "io.modelcontextprotocol/clientInfo": "me" } }), caps)),
    ).toEqual([400, -32602]);
    expect(refusal(checkModern(req({ "mcp-method": "tools/list" }), msg("tools/list"), caps))).toEqual([400, -32020]);
    expect(refusal(checkModern(req(H("tools/list", { "mcp-protocol-version": "2027-01-01" })), msg("tools/list"), caps))).toEqual([
      400, -32020,
    ]);
    expect(refusal(checkModern(req(H("prompts/list")), msg("tools/list"), caps))).toEqual([400, -32020]);
    const future = checkModern(
      req(H("tools/list", { "mcp-protocol-version": "2027-01-01" })),
      msg("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01" } }),
      caps,
    );
    expect(future).toMatchObject({
      refusal: {
        status: 400,
        code: -32022,
        data: { requested: "2027-01-01", supported: expect.arrayContaining(["2026-07-28", "2025-06-18"]) },
      },
    });
    expect(refusal(checkModern(req({ "mcp-protocol-version": "2026-07-28" }), msg("tools/list"), caps))).toEqual([400, -32020]);
    expect(refusal(checkModern(req(H("tools/call")), msg("tools/call", { name: "echo" }), caps))).toEqual([400, -32020]);
    expect(refusal(checkModern(req(H("tools/call", { "mcp-name": "echo" })), msg("tools/call", { name: "echo" }), caps))).toBe("ok");
    expect(refusal(checkModern(req(H("tools/call", { "mcp-name": "other" })), msg("tools/call", { name: "echo" }), caps))).toEqual([
      400, -32020,
    ]);
    expect(
      refusal(
        checkModern(req(H("resources/read", { "mcp-name": "file:///x" })), msg("resources/read", { uri: "file:///x" }), { resources: {} }),
      ),
    ).toBe("ok");
    for (const m of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "x/y"])
      expect(refusal(checkModern(req(H(m)), msg(m), caps))).toEqual([404, -32601]);
    // A list the server does not have does not exist.
    expect(refusal(checkModern(req(H("resources/list")), msg("resources/list"), caps))).toEqual([404, -32601]);
  });

  it("name non-ASCII tools in Mcp-Name as a Base64 sentinel", () => {
    const name = "wetter-prüfen";
    const sentinel = `=?base64?${Buffer.from(name).toString("base64")}?=`;
    expect(decodeMcpName(sentinel)).toBe(name);
    expect(decodeMcpName("plain")).toBe("plain");
    expect(decodeMcpName("=?base64?/w==?=")).toBeUndefined(); // not UTF-8
    expect(refusal(checkModern(req(H("tools/call", { "mcp-name": sentinel })), msg("tools/call", { name }), { tools: {} }))).toBe("ok");
  });

  it("reach the older server without the envelope, the answers or the state; other _meta stays", () => {
    const p = legacyParams({
      name: "x",
      inputResponses: { a: {} },
      requestState: "s",
      _meta: { ...envelope(), progressToken: 3, "example.com/k": 1 },
    });
    expect(p).toEqual({ name: "x", _meta: { progressToken: 3, "example.com/k": 1 } });
    expect(legacyParams({ _meta: envelope() })).toEqual({});
  });

  it("get results with resultType, caching hints and the server's identity; what the revision removed goes", () => {
    const list = modernAnswer(
      "tools/list",
      { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "a", execution: { taskSupport: "optional" } }] } },
      { name: "s", version: "1" },
    );
    expect(list.result).toEqual({
      tools: [{ name: "a" }],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
    });
    const call = modernAnswer("tools/call", { jsonrpc: "2.0", id: 1, result: { content: [] } }, undefined);
    expect(call.result).toEqual({ content: [], resultType: "complete", _meta: {} });
    const missing = modernAnswer(
      "resources/read",
      { jsonrpc: "2.0", id: 1, error: { code: -32002, message: "Resource not found", data: { uri: "x" } } },
      undefined,
    );
    expect(missing.error).toEqual({ code: -32602, message: "Resource not found", data: { uri: "x" } });
  });
});
