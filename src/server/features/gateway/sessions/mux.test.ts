import { describe, expect, it } from "vitest";
import { Mux } from "./mux.js";
import { RPC } from "../protocol.js";
import { call, fakeChannel, fakeSession, outlet } from "./mux-test-setup.js";

// The mux against a fake MCP channel: ids, progress tokens and server requests find their way
// back to the one session they belong to; the server's exit answers everything in flight.

describe("Mux", () => {
  it("forwards each session's request under an id of its own and answers under the client's id", () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const a = fakeSession();
    const b = fakeSession();
    mux.attach(a);
    mux.attach(b);
    const oa = outlet();
    const ob = outlet();
    expect(mux.forward(a, call(1), oa)).toBe(true);
    expect(mux.forward(b, call(1), ob)).toBe(true);
    const [ga, gb] = f.sent.map((m) => m.id);
    expect(typeof ga).toBe("string");
    expect(ga).not.toBe(gb);
    f.reply({ jsonrpc: "2.0", id: gb, result: { for: "b" } });
    f.reply({ jsonrpc: "2.0", id: ga, result: { for: "a" } });
    expect(oa.pushed).toEqual([{ msg: { jsonrpc: "2.0", id: 1, result: { for: "a" } }, final: true }]);
    expect(ob.pushed).toEqual([{ msg: { jsonrpc: "2.0", id: 1, result: { for: "b" } }, final: true }]);
    expect(a.inflight.size + b.inflight.size).toBe(0);
  });

  it("refuses an id already in flight in the session", () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const s = fakeSession();
    mux.attach(s);
    mux.forward(s, call(7), outlet());
    const o = outlet();
    expect(mux.forward(s, call(7), o)).toBe(false);
    expect(o.pushed[0]!.msg.error).toEqual({
      code: RPC.invalidRequest,
      message: "A request with this id is already in flight in this session",
    });
  });

  it("rewrites a progress token and gives progress back under the client's own", () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const s = fakeSession();
    mux.attach(s);
    const o = outlet();
    mux.forward(s, call(1, "tools/call", { name: "slow", _meta: { progressToken: "mine" } }), o);
    const token = f.sent[0]!.params!._meta!.progressToken;
    expect(token).not.toBe("mine");
    f.reply({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1 } });
    expect(o.pushed[0]).toEqual({
      msg: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "mine", progress: 1 } },
      final: false,
    });
  });

  it("sends a server request to a session that can answer it, and refuses it when none can", () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const plain = fakeSession({}, true);
    mux.attach(plain);
    f.reply({ jsonrpc: "2.0", id: 5, method: "sampling/createMessage", params: {} });
    expect(f.sent.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: RPC.methodNotFound, message: "No connected client supports sampling" },
    });
    const sampler = fakeSession({ sampling: true }, true);
    mux.attach(sampler);
    f.reply({ jsonrpc: "2.0", id: 6, method: "sampling/createMessage", params: {} });
    expect(sampler.notified.map((m) => m.id)).toEqual([6]);
    // Only the session that was asked may answer.
    const before = f.sent.length;
    mux.answerServer(plain, { jsonrpc: "2.0", id: 6, result: {} });
    expect(f.sent.length).toBe(before);
    mux.answerServer(sampler, { jsonrpc: "2.0", id: 6, result: {} });
    expect(f.sent.at(-1)).toEqual({ jsonrpc: "2.0", id: 6, result: {} });
  });

  it("initializes the server once per protocol revision", async () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const first = mux.initialize({ protocolVersion: "2025-06-18" });
    const second = mux.initialize({ protocolVersion: "2025-06-18" });
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]).toMatchObject({ method: "initialize", params: { protocolVersion: "2025-06-18" } });
    f.reply({ jsonrpc: "2.0", id: f.sent[0]!.id, result: { protocolVersion: "2025-06-18", serverInfo: { name: "x" } } });
    expect(await first).toBe(await second);
    expect(f.sent[1]).toEqual({ jsonrpc: "2.0", method: "notifications/initialized" });
  });

  it("cancels a detached session's calls on the server", () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const s = fakeSession();
    mux.attach(s);
    const o = outlet();
    mux.forward(s, call(1), o);
    const gwId = f.sent[0]!.id;
    mux.detach(s);
    expect(o.pushed[0]!.msg.error).toEqual({ code: RPC.sessionNotFound, message: "The session ended before the server answered" });
    expect(f.sent.at(-1)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: gwId, reason: "The client session ended" },
    });
    expect(mux.sessions.size).toBe(0);
  });

  it("answers every call in flight with the reason the channel gives when the server exits", async () => {
    const f = fakeChannel();
    const mux = new Mux(f.channel, 60_000);
    const s = fakeSession();
    mux.attach(s);
    const o = outlet();
    mux.forward(s, call(3), o);
    const init = mux.initialize({ protocolVersion: "2025-11-25" });
    await f.exit("exited with code 1");
    expect(mux.dead).toBe(true);
    expect(o.pushed[0]!.msg).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: RPC.serverError,
        message: "The MCP server stopped while handling this request (exited with code 1). Start a new session once it is running again.",
      },
    });
    expect((await init).error).toEqual({ code: RPC.serverError, message: "The MCP server stopped (exited with code 1)" });
    expect(s.closed).toBe(true);
    expect(f.listeners.size).toBe(0);
    const late = outlet();
    expect(mux.forward(s, call(4), late)).toBe(false);
    expect(late.pushed[0]!.msg.error).toMatchObject({ code: RPC.serverError });
  });
});
