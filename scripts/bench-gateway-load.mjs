// Load generator for bench:gateway, in its own process: N sessions of the official SDK client,
// each calling `echo` in a closed loop for a fixed time. Prints calls/s, p50 and p99 as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { mode, sessions, durationMs, warmupCalls, url, key, command, args, env } = JSON.parse(process.argv[2]);

async function connect() {
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} });
  const transport =
    mode === "stdio"
      ? new StdioClientTransport({ command, args, env, stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(url), key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {});
  await client.connect(transport);
  return client;
}

const clients = await Promise.all(Array.from({ length: sessions }, connect));
const call = (c, i) => c.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
for (const c of clients) for (let i = 0; i < warmupCalls; i++) await call(c, i);

const latencies = [];
const started = performance.now();
const deadline = started + durationMs;
await Promise.all(
  clients.map(async (c) => {
    let i = 0;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const r = await call(c, i++);
      latencies.push(performance.now() - t0);
      if (!r.content?.[0]?.text?.includes("hello")) throw new Error(`unexpected answer ${JSON.stringify(r)}`);
    }
  }),
);
const elapsed = performance.now() - started;
await Promise.all(clients.map((c) => c.close().catch(() => {})));
latencies.sort((a, b) => a - b);
const q = (x) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * x))];
const result = { callsPerSec: latencies.length / (elapsed / 1000), p50: q(0.5), p99: q(0.99), calls: latencies.length };
process.stdout.write(JSON.stringify(result), () => process.exit(0));
