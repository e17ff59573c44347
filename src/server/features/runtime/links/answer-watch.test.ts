import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { asRequest, requestId, watchAnswers } from "./answer-watch.js";

// An answer over streamable HTTP that ends without answering its request: the SDK's own transport,
// given the watched fetch, with answers of the server's making.

type Answer = { status?: number; type?: string; body?: string };

/**
 * The SDK's transport over a fetch that answers every POST with `answer(message)`, as a link uses
 * it: a request waits until a response with its id arrives; `unanswered` lists those the watch
 * called ended while they still waited (it is told after the SDK dispatched what the answer held).
 */
async function exchange(message: JSONRPCMessage, answer: (m: { id?: unknown }) => Answer) {
  const unanswered: (string | number)[] = [];
  const received: JSONRPCMessage[] = [];
  const waiting = new Set<unknown>();
  const fetch = watchAnswers(
    async (_url, init) => {
      const a = answer(JSON.parse(String(init?.body)) as { id?: unknown });
      return new Response(a.body ?? null, { status: a.status ?? 200, headers: a.type ? { "content-type": a.type } : {} });
    },
    (id) => {
      if (waiting.delete(id)) unanswered.push(id);
    },
    10,
  );
  if ("method" in message && "id" in message) waiting.add(message.id);
  const transport = new StreamableHTTPClientTransport(new URL("http://upstream.test/mcp"), { fetch });
  transport.onmessage = (m) => {
    received.push(m);
    if (!("method" in m) && "id" in m) waiting.delete(m.id);
  };
  transport.onerror = () => {};
  await transport.start();
  await transport.send(asRequest(message));
  await new Promise((r) => setTimeout(r, 20));
  await transport.close();
  return { unanswered, received };
}

const call = { jsonrpc: "2.0", id: "sb7", method: "tools/call", params: { name: "echo" } } as const;
const sse = (...events: string[]) => events.map((e) => `${e}\n\n`).join("");

describe("answers that end without answering", () => {
  it("reads the id of a request shaped by asRequest, whatever order its members came in, and nothing else", () => {
    const shaped = JSON.stringify(asRequest({ params: { a: 1 }, method: "tools/call", id: 12, jsonrpc: "2.0" } as JSONRPCMessage));
    expect(shaped.startsWith('{"jsonrpc":"2.0","id":12,"method":"tools/call"')).toBe(true);
    expect(requestId(shaped)).toBe(12);
    expect(requestId(JSON.stringify(asRequest({ ...call, id: 'a"b' } as JSONRPCMessage)))).toBe('a"b');
    expect(requestId(JSON.stringify(asRequest({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage)))).toBe(undefined);
    expect(requestId(JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} }))).toBe(undefined);
  });

  it("tells the link of a JSON answer with another id, an empty batch, a notification alone, and a 202", async () => {
    const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
    for (const a of [
      { type: "application/json", body: JSON.stringify({ jsonrpc: "2.0", id: "other", result: {} }) },
      { type: "application/json", body: "[]" },
      { type: "application/json", body: note },
      { status: 202 },
    ])
      expect((await exchange(call, () => a)).unanswered).toEqual(["sb7"]);
  });

  it("says nothing of an answer that answers, nor of a notification", async () => {
    const answered = await exchange(call, (m) => ({
      type: "application/json",
      body: JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} }),
    }));
    expect(answered.unanswered).toEqual([]);
    expect(answered.received).toEqual([{ jsonrpc: "2.0", id: "sb7", result: {} }]);
    const streamed = await exchange(call, (m) => ({
      type: "text/event-stream",
      body: sse(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} })}`),
    }));
    expect(streamed.unanswered).toEqual([]);
    const notification = await exchange({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage, () => ({ status: 202 }));
    expect(notification.unanswered).toEqual([]);
  });

  it("tells of an event stream that ended without the answer, but not of one the client may resume (it carried event ids)", async () => {
    const note = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })}`;
    expect((await exchange(call, () => ({ type: "text/event-stream", body: sse(note) }))).unanswered).toEqual(["sb7"]);
    expect((await exchange(call, () => ({ type: "text/event-stream", body: sse(`id: e1\n${note}`) }))).unanswered).toEqual([]);
    // An empty id resumes nothing (the SDK resumes only from one with a value).
    expect((await exchange(call, () => ({ type: "text/event-stream", body: sse(`id:\n${note}`) }))).unanswered).toEqual(["sb7"]);
  });
});
