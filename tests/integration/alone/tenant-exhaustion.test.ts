// One tenant against the platform around the sandbox (docs/hosting.md#what-a-server-costs-the-platform):
// a server that stops reading its input while its clients post, a client that stops reading its
// stream while the server sends large notifications, a server that floods the platform with
// messages, a server that leaves a thousand large definitions behind. Each attack runs against
// tests/fixtures/flood-server deployed from git, while a benign neighbour on the same runner is
// called every 50 ms: what the platform holds stays within its caps, and the neighbour's latency
// within twice its quiet value (see withinTwiceQuiet).
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { execFile } from "node:child_process";
import http from "node:http";
import v8 from "node:v8";
import vm from "node:vm";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { floodNotice } from "~/server/features/runtime/process/flow.js";
import { recordListing, MAX_PINS_PER_USER } from "~/server/features/deployments/definitions/definitions-repo.js";
import { definitionOf, type Definition } from "~/server/features/deployments/definitions/definitions.js";
import { GATEWAY_TEXT } from "~/server/features/gateway/text.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "../../support/app.js";
import { registerOwnedServer, waitForStatus } from "../../support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../../support/git-fixture.js";
import { MCP_ACCEPT, newApiKey, rawSession, sdkClient, textOf } from "../../support/gateway.js";

// "Comes back down" means nothing still holds the memory: a collection is asked for before each
// reading, so an idle process that has simply not collected yet is not mistaken for one that holds
// the bodies (what a leak would do, and what a collection cannot free).
v8.setFlagsFromString("--expose-gc");
const collect = vm.runInNewContext("gc") as () => void;

const MB = 1024 * 1024;
/** The budgets of this app: the defaults but for a shorter flood (so the test need not wait a minute), lower rates and the default stdin cap. */
const FLOW = { messagesPerSecond: 2000, bytesPerSecond: 4 * MB, floodStopMs: 4000, stdinBytes: 4 * MB };
const STREAM_BYTES = 4 * MB;

let t: TestApp;
let repo: FixtureRepo;
let users = 0;
let neighbour: McpClient;

interface Tenant {
  c: Client;
  d: DeploymentView;
  key: string;
  /** a tool call through the platform's own client of the deployment (no gateway session) */
  direct(tool: string, args?: Record<string, unknown>): Promise<unknown>;
}

async function deploy(env: Record<string, string> = {}): Promise<Tenant> {
  const name = `tenant${++users}`;
  const c = await signedInUser(t, `${name}@example.com`);
  await registerOwnedServer(c, `${name}/flood`, "Flood");
  const r = await c.post(`/api/deploy/${name}/flood`, { repositoryUrl: repo.url, env });
  expect(r.status, await r.clone().text()).toBe(202);
  const d = await waitForStatus(c, `${name}/flood`, "running", 60_000);
  const key = await newApiKey(c, "attack");
  const direct = (tool: string, args: Record<string, unknown> = {}) =>
    t.runtime.runner.client(d.id)!.callTool({ name: tool, arguments: args });
  return { c, d, key, direct };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The p99 of the neighbour's echo calls, one every 50 ms for `ms` (with 60 calls, the worst but one). */
async function neighbourP99(ms: number): Promise<number> {
  const took: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    expect(textOf(await neighbour.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe('{"echo":"hi"}');
    took.push(performance.now() - started);
    await sleep(50);
  }
  took.sort((a, b) => a - b);
  return took[Math.max(0, Math.ceil(took.length * 0.99) - 1)]!;
}

let quietP99 = 0;
/**
 * Within twice its quiet value, or 80 ms above it: on a shared two-core test machine, where the
 * test's own clients share the platform's event loop, a garbage collection or a late timer alone
 * moves a p99 of a few milliseconds by tens (a CI run saw 7.6 ms quiet, 47.8 ms under a defended
 * attack). The harm these attacks did before their defences was 30 ms -> 1,266 ms and
 * 10 ms -> 851 ms, ten times this margin.
 */
function withinTwiceQuiet(p99: number) {
  console.info(`neighbour p99 ${p99.toFixed(1)} ms (quiet ${quietP99.toFixed(1)} ms)`);
  expect(p99, `p99 ${p99.toFixed(1)} ms, quiet ${quietP99.toFixed(1)} ms`).toBeLessThanOrEqual(Math.max(2 * quietP99, quietP99 + 80));
}

/** The largest value `read` gave, sampled every 20 ms while `during` runs. */
async function peakWhile(read: () => number, during: Promise<unknown>): Promise<number> {
  let peak = read();
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, read());
    await sleep(20);
  }
  return Math.max(peak, read());
}

beforeAll(async () => {
  repo = await createFixtureRepo({ fixture: "flood-server", executables: ["server.js"] });
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DEPLOY_START_TIMEOUT_MS: "30000",
    RESTART_BACKOFF_MS: "600000",
    GATEWAY_RATE_FREE: "0",
    AUTH_RATE_LIMIT: "off",
    DEPLOY_MESSAGES_PER_SECOND: String(FLOW.messagesPerSecond),
    DEPLOY_FLOOD_STOP_MS: String(FLOW.floodStopMs),
    DEPLOY_OUTPUT_BYTES_PER_SECOND: String(FLOW.bytesPerSecond),
    GATEWAY_STREAM_BUFFER_BYTES: String(STREAM_BYTES),
  });
  await t.listen();
  const n = await deploy();
  neighbour = await sdkClient(n.d.url, n.key);
  await neighbourP99(1000); // warm up
  quietP99 = await neighbourP99(3000);
}, 180_000);
afterAll(async () => {
  await neighbour?.close();
  await t?.close();
  await repo?.cleanup();
});

describe("a tenant cannot make the platform hold its memory", () => {
  it("a server that stops reading its input: the platform holds at most DEPLOY_STDIN_BUFFER_BYTES for it and refuses the rest with a clear error", async () => {
    const a = await deploy();
    const session = await rawSession(a.d.url, a.key);
    // 80 calls of 128 KB each (10 MB), one every 50 ms. The bodies are made once, so the
    // attacker's own work stays out of the neighbour's figures.
    const url = new URL(a.d.url);
    const bodies = Array.from({ length: 80 }, (_, i) =>
      Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 100 + i,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "p".repeat(MB / 8) } },
        }),
      ),
    );
    const post = (body: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { ...session.headers, "content-length": body.length },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => (text += d.length > 1000 ? d.slice(0, 1000) : d));
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    const postAll = (answers: Promise<string>[]) =>
      (async () => {
        for (const b of bodies) {
          answers.push(post(b));
          await sleep(50);
        }
      })();
    // Reading and parsing requests is the gateway's work for any server (bounded by
    // GATEWAY_MAX_BODY_BYTES and fair use), so the neighbour's yardstick is the same load on a
    // server that reads them: holding them for one that does not must cost the neighbour no more.
    const control: Promise<string>[] = [];
    const [, controlP99] = await Promise.all([postAll(control), neighbourP99(4000)]);
    expect((await Promise.all(control)).every((text) => text.includes('\\"echo\\"'))).toBe(true);

    expect((await session.call(2, "tools/call", { name: "stall", arguments: { ms: 8000 } })).status).toBe(200);
    await sleep(200);
    // The same calls to the server while it reads none of them for 8 s.
    const answers: Promise<string>[] = [];
    const attack = postAll(answers);
    const [held, p99] = await Promise.all([
      peakWhile(() => t.runtime.runner.outputStats(a.d.id)?.inputHeldBytes ?? 0, attack),
      neighbourP99(4000),
    ]);
    const settled = await Promise.all(answers);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(FLOW.stdinBytes + 0.15 * MB);
    const refused = settled.filter((text) =>
      text.includes("The MCP server is not reading its input: the platform holds at most 4 MB of requests for it"),
    );
    expect(refused.length).toBeGreaterThan(30);
    // What was taken is answered once the server reads again; nothing is left held.
    expect(settled.filter((text) => text.includes('\\"echo\\"')).length).toBeGreaterThan(0);
    expect(t.runtime.runner.outputStats(a.d.id)?.inputHeldBytes).toBe(0);
    console.info(
      `neighbour p99 ${p99.toFixed(1)} ms under the attack, ${controlP99.toFixed(1)} ms under the same calls to a server that reads them (quiet ${quietP99.toFixed(1)} ms)`,
    );
    expect(p99).toBeLessThanOrEqual(Math.max(2 * controlP99, controlP99 + 40));
    const back = await session.call(3, "tools/call", { name: "echo", arguments: { text: "back" } });
    expect(textOf(back.json<{ result: unknown }>().result)).toBe('{"echo":"back"}');
  }, 120_000);

  it("30 posts of 4 MB at once to a server that stopped reading: refused past GATEWAY_INFLIGHT_BYTES before their bodies are read, and the platform's memory grows by at most 64 MB and comes back down", async () => {
    const a = await deploy();
    const session = await rawSession(a.d.url, a.key);
    const url = new URL(a.d.url);
    // The attacker is a process of its own (on the other core), so what the neighbour feels is the
    // platform's work alone; each body is streamed from one 64 KB chunk (4 MB each, Content-Length declared).
    const attacker = `
      const http = require("node:http");
      const [host, port, path, headers] = [process.argv[1], process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
      const chunk = Buffer.alloc(64 * 1024, "p");
      const post = (i) => new Promise((resolve) => {
        const head = Buffer.from('{"jsonrpc":"2.0","id":' + (1000 + i) + ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"');
        const tail = Buffer.from('"}}}');
        const req = http.request({ host, port, path, method: "POST", headers: { ...headers, "content-length": head.length + 64 * chunk.length + tail.length } }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => (text += text.length < 1000 ? d.slice(0, 1000) : ""));
          res.on("end", () => resolve({ status: res.statusCode, retryAfter: res.headers["retry-after"], text }));
        });
        req.on("error", (e) => resolve({ status: 0, text: e.message }));
        req.write(head);
        let sent = 0;
        const more = () => { while (sent < 64) { sent++; if (!req.write(chunk)) return void req.once("drain", more); } req.end(tail); };
        more();
      });
      Promise.all(Array.from({ length: 30 }, (_, i) => post(i))).then((r) => process.stdout.write(JSON.stringify(r)));
    `;
    const posts = () =>
      new Promise<{ status: number; retryAfter?: string; text: string }[]>((resolve, reject) => {
        execFile(
          process.execPath,
          ["-e", attacker, url.hostname, url.port, url.pathname, JSON.stringify(session.headers)],
          { maxBuffer: 1024 * 1024 },
          (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout))),
        );
      });
    expect((await session.call(2, "tools/call", { name: "stall", arguments: { ms: 6000 } })).status).toBe(200);
    await sleep(200);
    const rss = () => process.memoryUsage.rss();
    const before = Math.min(rss(), rss());
    const attack = posts();
    const [peak, p99] = await Promise.all([peakWhile(rss, attack), neighbourP99(4000)]);
    const answers = await attack;
    const refused = answers.filter((r) => r.status === 503);
    console.info(
      `RSS ${Math.round(before / MB)} MB before, peak ${Math.round(peak / MB)} MB (+${Math.round((peak - before) / MB)} MB); ${refused.length} of 30 refused`,
    );
    // The deployment's budget (8 MB) takes one of them at a time: the rest are refused at once, with a retry.
    expect(refused.length).toBeGreaterThanOrEqual(28);
    for (const r of refused) {
      expect(r.retryAfter).toBe("1");
      expect((JSON.parse(r.text) as { error: { message: string } }).error.message).toBe(GATEWAY_TEXT.inFlight("deployment", 8 * MB));
    }
    expect(peak - before).toBeLessThanOrEqual(64 * MB);
    // What was taken is answered once the server reads again; then nothing is in flight, and the memory is given back.
    const taken = answers.filter((r) => r.status === 200);
    expect(taken.length).toBeGreaterThanOrEqual(1);
    for (const r of taken) expect(r.text).toContain('\\"echo\\"');
    expect(t.gateway.inflight.held(a.d.id)).toBe(0);
    await expect
      .poll(
        () => {
          collect();
          return rss() - before;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBeLessThanOrEqual(32 * MB);
    // Reading, parsing and answering a 4 MB request is the gateway's work for any server: the
    // neighbour's yardstick is the same posts to this server while it reads them.
    const [, controlP99] = await Promise.all([posts(), neighbourP99(4000)]);
    console.info(
      `neighbour p99 ${p99.toFixed(1)} ms under the attack, ${controlP99.toFixed(1)} ms under the same posts to a server that reads them`,
    );
    expect(p99).toBeLessThanOrEqual(Math.max(2 * controlP99, controlP99 + 40));
  }, 120_000);

  it("a client that stops reading its stream: it is closed at GATEWAY_STREAM_BUFFER_BYTES, whatever the server sends", async () => {
    const a = await deploy();
    const session = await rawSession(a.d.url, a.key);
    expect((await session.call(2, "resources/subscribe", { uri: "file:///big" })).status).toBe(200);
    // The session's GET stream, never read.
    const url = new URL(a.d.url);
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "GET",
          headers: { ...session.headers, accept: "text/event-stream" },
        },
        resolve,
      );
      req.on("error", reject);
      req.end();
    });
    expect(stream.statusCode).toBe(200);
    stream.pause();
    let closed = false;
    stream.socket.once("close", () => (closed = true));
    const stalledBefore = t.gateway.counts().streamsClosedSlow;
    // 160 notifications of 128 KB (20 MB, at most DEPLOY_OUTPUT_BYTES_PER_SECOND) for a client that takes none of them.
    await a.direct("big_updates", { n: 160, kb: 128 });
    const sending = sleep(7000);
    const [held, p99] = await Promise.all([peakWhile(() => t.gateway.counts().streamBytesHeld, sending), neighbourP99(7000)]);
    expect(held).toBeLessThanOrEqual(STREAM_BYTES + 0.2 * MB);
    expect(t.gateway.counts().streamsClosedSlow).toBeGreaterThan(stalledBefore);
    // The client, reading again, finds its stream ended after a part of what was sent (20 MB).
    let received = 0;
    stream.on("data", (d: Buffer) => (received += d.length));
    stream.resume();
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(true);
    expect(received).toBeLessThan(12 * MB);
    // Once the stream is gone, nothing is held for it.
    await expect.poll(() => t.gateway.counts().streamBytesHeld, { timeout: 5000 }).toBeLessThan(64 * 1024);
    withinTwiceQuiet(p99);
    stream.destroy();
  }, 120_000);
});

describe("a tenant cannot make the platform spend its CPU", () => {
  it("a server that floods pings is read no faster than its budget, then stopped as failed with why", async () => {
    const a = await deploy();
    const started = performance.now();
    await a.direct("flood", { kind: "ping", n: 1_000_000 });
    const p99 = await neighbourP99(3000);
    const stats = t.runtime.runner.outputStats(a.d.id);
    const seconds = (performance.now() - started) / 1000;
    // At most the budget a second (plus a second's burst and what one read brings), and little of the platform's time.
    if (stats) {
      expect(stats.lines).toBeLessThan(FLOW.messagesPerSecond * (seconds + 1) + 20_000);
      expect(stats.cpuSeconds).toBeLessThan(0.3 * seconds);
    }
    withinTwiceQuiet(p99);
    const failed = await waitForStatus(a.c, a.d.server_id, "failed", 30_000);
    expect(failed.status_detail).toMatch(new RegExp(`^${floodNotice(FLOW).replace(/[[\]]/g, "\\$&")}`));
    await expect.poll(() => t.runtime.runner.runs(a.d.id), { timeout: 10_000 }).toBe(false);
  }, 120_000);

  it("a server that asks clients questions nobody answers is answered with errors beyond the cap, and stays within its budget", async () => {
    const a = await deploy();
    // A session that says it can sample, with its GET stream open, and never answers.
    const session = await rawSession(a.d.url, a.key, "2025-06-18", { sampling: {} });
    const url = new URL(a.d.url);
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "GET",
          headers: { ...session.headers, accept: MCP_ACCEPT.split(", ")[1]! },
        },
        resolve,
      );
      req.on("error", reject);
      req.end();
    });
    let asked = 0;
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (asked += chunk.split("sampling/createMessage").length - 1));
    const droppedBefore = t.gateway.counts().messagesDropped;
    await a.direct("flood", { kind: "request", n: 5000 });
    const p99 = await neighbourP99(3000);
    // The client is asked at most MAX_SERVER_REQUESTS questions; the rest were answered with errors at once,
    // counted (switchboard_gateway_messages_dropped_total) rather than logged one line each.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(100);
    expect(t.gateway.counts().messagesDropped - droppedBefore).toBeGreaterThanOrEqual(4900 - asked);
    withinTwiceQuiet(p99);
    stream.destroy();
  }, 120_000);
});

describe("pins by what clients can do", () => {
  it("a tool listed only to clients that can sample is pinned at the first deploy, not reported as changed", async () => {
    const a = await deploy();
    const client = await sdkClient(a.d.url, a.key, { capabilities: { sampling: {} } });
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("ask_model");
    await client.close();
    const review = (await (await a.c.get(`/api/deployments/${a.d.id}/definitions`)).json()) as { changes: unknown[] };
    expect(review.changes).toEqual([]);
  }, 120_000);
});

describe("what a deployment leaves behind", () => {
  const count = async (q: ReturnType<typeof sql>) => (await t.db.database.db.execute<{ n: number }>(q)).rows[0]!.n;

  it("a thousand large definitions go when the deployment is stopped", async () => {
    const a = await deploy({ FLOOD_TOOLS: "1000", FLOOD_TOOL_KB: "14" });
    const userId = (await t.db.database.db.execute<{ user_id: string }>(sql`select user_id from deployments where id = ${a.d.id}`)).rows[0]!
      .user_id;
    await expect
      .poll(() => count(sql`select count(*)::int as n from definition_pins where user_id = ${userId}`), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1000);
    expect((await a.c.del(`/api/deployments/${a.d.id}`)).status).toBe(200);
    expect(await count(sql`select count(*)::int as n from definition_pins where user_id = ${userId}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from definition_reviews where user_id = ${userId}`)).toBe(0);
  }, 120_000);

  it("one user pins at most MAX_PINS_PER_USER definitions in all: beyond, new ones are withheld, not stored", async () => {
    const c = await signedInUser(t, `pinner${++users}@example.com`);
    const me = (await (await c.get("/api/auth/me")).json()) as { user: { id: string } };
    const userId = me.user.id;
    await t.db.database.db.execute(sql`
      insert into definition_pins (user_id, server_kind, server_ref, kind, name, approved_hash, current_hash)
      select ${userId}, 'owned', 'someone/elsewhere', 'tool', 'old_' || i, 'h', 'h' from generate_series(1, ${MAX_PINS_PER_USER - 5}) as i`);
    const defs = Array.from({ length: 20 }, (_, i) =>
      definitionOf({ name: `new_${i}`, description: "d", inputSchema: { type: "object" } }),
    ).filter((d): d is Definition => d !== undefined);
    await recordListing(t.db.database.db, { userId, serverKind: "owned", serverRef: "someone/here" }, "tool", defs, true);
    expect(await count(sql`select count(*)::int as n from definition_pins where user_id = ${userId}`)).toBe(MAX_PINS_PER_USER);
    expect(await count(sql`select count(*)::int as n from definition_pins where user_id = ${userId} and server_ref = 'someone/here'`)).toBe(
      5,
    );
  }, 60_000);
});
