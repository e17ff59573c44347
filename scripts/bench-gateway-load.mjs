// Load generator for bench:gateway, in its own process: N sessions of the official SDK client (v1,
// or v2 stateless or with a session), each calling `echo` in a closed loop for a fixed time. Prints
// calls/s, p50 and p99 as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { mode, sessions, durationMs, warmupCalls, warmupMs, url, key, command, args, env, tool = "echo" } = JSON.parse(process.argv[2]);

/**
 * The same call by hand over kept-alive HTTP, the same few bytes of client work either way, so the
 * figures are the gateway's: with a session (initialize first, then its id on each call) or
 * stateless (the 2026-07-28 envelope and headers on each call).
 */
async function rawClient(stateless) {
  const http = await import("node:http");
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const u = new URL(url);
  const headers = { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream", "content-type": "application/json" };
  const post = (body, extra = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent, headers: { ...headers, ...extra } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ headers: res.headers, text }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  };
  let extra = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" };
  if (!stateless) {
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
    extra = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25" };
  }
  let id = 0;
  return {
    async callTool({ arguments: args }) {
      const params = { name: "echo", arguments: args, ...(stateless ? { _meta: meta } : {}) };
      const r = await post({ jsonrpc: "2.0", id: ++id, method: "tools/call", params }, extra);
      return JSON.parse(r.text).result;
    },
    close: async () => agent.destroy(),
  };
}

async function connect() {
  if (mode === "raw-session" || mode === "raw-stateless") return rawClient(mode === "raw-stateless");
  // The SDK v2 client: pinned to 2026-07-28 (stateless: no session, the envelope on every request), or as shipped (a 2025 session).
  if (mode === "v2-stateless" || mode === "v2-session") {
    const v2 = await import("@modelcontextprotocol/client");
    const client = new v2.Client(
      { name: "bench", version: "1.0.0" },
      { capabilities: {}, ...(mode === "v2-stateless" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) },
    );
    await client.connect(
      new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    return client;
  }
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} });
  const transport =
    mode === "stdio"
      ? new StdioClientTransport({ command, args, env, stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(url), key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {});
  await client.connect(transport);
  return client;
}

const clients = await Promise.all(Array.from({ length: sessions }, connect));
// `tool`: echo under another name (a toolset's `prefix_echo`).
const call = (c, i) => c.callTool({ name: tool, arguments: { message: `hello ${i}` } });
for (const c of clients) for (let i = 0; i < warmupCalls; i++) await call(c, i);

const latencies = [];
/** every call this process made, warm-up included: what the server's CPU is divided by */
let allCalls = warmupCalls * sessions;
/** The same closed loop, every session at once, until `deadline`; `record`: keep the latencies. */
const loop = (deadline, record) =>
  Promise.all(
    clients.map(async (c) => {
      let i = 0;
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const r = await call(c, i++);
        allCalls++;
        if (record) latencies.push(performance.now() - t0);
        if (!r.content?.[0]?.text?.includes("hello")) throw new Error(`unexpected answer ${JSON.stringify(r)}`);
      }
    }),
  );
// Steady state: the load runs unmeasured first, so the client, the server in front and V8's
// optimising compiler on both sides have warmed up (a cold run spends its first seconds slower).
await loop(performance.now() + (warmupMs ?? 0), false);
const started = performance.now();
await loop(started + durationMs, true);
const elapsed = performance.now() - started;
await Promise.all(clients.map((c) => c.close().catch(() => {})));
latencies.sort((a, b) => a - b);
const q = (x) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * x))];
const result = { callsPerSec: latencies.length / (elapsed / 1000), p50: q(0.5), p99: q(0.99), calls: latencies.length, allCalls };
process.stdout.write(JSON.stringify(result), () => process.exit(0));
