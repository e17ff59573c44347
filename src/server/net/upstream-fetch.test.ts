import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowListed, guardedFetch, resolveUpstream, upstreamFetch } from "./upstream-fetch.js";

// The outbound client of connections: which addresses it reaches, and how each answer is bounded.
// Fetches go only to servers this test starts on loopback (allowed as an operator would allow them).

describe("which addresses a connection reaches", () => {
  const refused = (url: string, allow: string[] = []) => expect(resolveUpstream(new URL(url), allow)).rejects.toThrow();

  it.each([
    "https://127.0.0.1/mcp",
    "https://10.1.2.3/mcp",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/mcp",
    "https://[::ffff:127.0.0.1]/mcp",
    "https://[fd00::1]/mcp",
    // A name that resolves to loopback (this machine's hosts file: no query leaves it).
    "https://localhost/mcp",
  ])("refuses %s", async (url) => {
    await refused(url);
  });

  it("refuses plain http to a public address and other schemes, whatever the operator allows elsewhere", async () => {
    await expect(resolveUpstream(new URL("http://8.8.8.8/mcp"), ["127.0.0.1/32"])).rejects.toThrow(/must use https/);
    await expect(resolveUpstream(new URL("ftp://8.8.8.8/mcp"), [])).rejects.toThrow(/must use https/);
  });

  it("refuses this machine's own addresses even where they are public", async () => {
    const own = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && i.family === "IPv4")
      .map((i) => i!.address);
    for (const a of own) await refused(`https://${a}/mcp`);
  });

  it("reaches public https addresses, and what the operator lists (plain http too)", async () => {
    await expect(resolveUpstream(new URL("https://8.8.8.8/mcp"), [])).resolves.toEqual({ address: "8.8.8.8", family: 4 });
    await expect(resolveUpstream(new URL("http://127.0.0.1:9/mcp"), ["127.0.0.1/32"])).resolves.toMatchObject({ address: "127.0.0.1" });
    await expect(resolveUpstream(new URL("http://10.9.8.7/mcp"), ["10.0.0.0/8"])).resolves.toMatchObject({ address: "10.9.8.7" });
    await refused("http://10.9.8.7/mcp", ["10.9.8.6/32"]);
    expect(allowListed("::ffff:10.1.1.1", ["10.1.0.0/16"])).toBe(true);
    expect(allowListed("::1", ["127.0.0.1/32"])).toBe(false);
  });
});

describe("each answer is bounded", () => {
  let server: http.Server;
  let base: URL;
  const requests: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers["x-key"] ?? ""}`);
      if (req.url === "/redirect") return void res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end("x".repeat(200_000));
      }
      if (req.url === "/events") {
        // Small events forever: bounded in time, not in size.
        res.writeHead(200, { "content-type": "text/event-stream" });
        const timer = setInterval(() => res.write("data: {}\n\n"), 10);
        return void res.on("close", () => clearInterval(timer));
      }
      if (req.url === "/steady") {
        // 600 KB as fast as the socket takes it.
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end("z".repeat(600_000));
      }
      if (req.url === "/one-big-event") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.end(`data: ${"y".repeat(200_000)}\n\n`);
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const client = (cut?: (body: string, message: string) => void) =>
    upstreamFetch({
      url: base,
      target: { address: "127.0.0.1", family: 4 },
      headers: { "x-key": "user-secret" },
      maxBodyBytes: 100_000,
      headersTimeoutMs: 2000,
      answerTimeoutMs: 500,
      bytesPerSecond: 10_000_000,
      onCut: cut,
    });

  it("sends the connection's headers to its own origin only, and follows no redirect", async () => {
    const { fetch, close } = client();
    const ok = await fetch(base, { method: "POST", body: "{}" });
    expect(await ok.json()).toEqual({ ok: true });
    expect(requests.at(-1)).toBe("POST /mcp user-secret");
    const moved = await fetch(new URL("/redirect", base));
    expect(moved.status).toBe(302);
    expect(requests.some((r) => r.includes("/elsewhere"))).toBe(false);
    const before = requests.length;
    await expect(fetch("http://127.0.0.2:1/mcp")).rejects.toThrow(/another address/);
    await expect(fetch(`http://localhost:${base.port}/mcp`)).rejects.toThrow(/another address/);
    expect(requests.length).toBe(before);
    close();
  });

  it("reaches any origin for OAuth under the same rules, with no header of the connection's (guardedFetch)", async () => {
    const o = { maxBodyBytes: 100_000, headersTimeoutMs: 2000, answerTimeoutMs: 500, bytesPerSecond: 10_000_000 };
    const allowed = guardedFetch({ ...o, allow: ["127.0.0.1/32"] });
    const ok = await allowed(base, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token" }) });
    expect(await ok.json()).toEqual({ ok: true });
    expect(requests.at(-1)).toBe("POST /mcp ");
    const before = requests.length;
    // Where metadata points, the same addresses are refused: nothing is sent there.
    await expect(guardedFetch({ ...o, allow: [] })(base)).rejects.toThrow(/https/);
    await expect(allowed("https://169.254.169.254/latest/meta-data/")).rejects.toThrow(/does not connect/);
    await expect(allowed("https://10.1.2.3/token")).rejects.toThrow(/does not connect/);
    expect(requests.length).toBe(before);
  });

  it("cuts off an answer larger than the limit, and one event larger than it, telling which request it carried", async () => {
    const cuts: string[] = [];
    const { fetch, close } = client((body, message) => cuts.push(`${body} ${message}`));
    const big = await fetch(new URL("/big", base), { method: "POST", body: '{"id":7}' });
    await expect(big.text()).rejects.toThrow();
    const event = await fetch(new URL("/one-big-event", base), { method: "POST", body: '{"id":8}' });
    await expect(event.text()).rejects.toThrow();
    expect(cuts).toEqual([
      '{"id":7} The remote server\'s answer is larger than 98 KB',
      '{"id":8} The remote server\'s answer is larger than 98 KB',
    ]);
    close();
  });

  it("reads a connection no faster than its budget: the rest waits in TCP", async () => {
    const { fetch, close } = upstreamFetch({
      url: base,
      target: { address: "127.0.0.1", family: 4 },
      headers: {},
      maxBodyBytes: 1_000_000,
      headersTimeoutMs: 2000,
      answerTimeoutMs: 10_000,
      bytesPerSecond: 200_000,
    });
    const started = Date.now();
    // A second's worth at once, then 200 KB a second: 600 KB take about 2 s.
    expect((await (await fetch(new URL("/steady", base))).text()).length).toBe(600_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
    close();
  });

  it("ends an answer streamed longer than its time, but keeps the GET stream of notifications open", async () => {
    const cuts: string[] = [];
    const { fetch, close } = client((_b, message) => cuts.push(message));
    const started = Date.now();
    const answer = await fetch(new URL("/events", base), { method: "POST", body: '{"id":9}' });
    await expect(answer.text()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(cuts).toEqual(["The remote server's answer took longer than 0.5 s"]);
    const stream = await fetch(new URL("/events", base));
    const reader = stream.body!.getReader();
    const until = Date.now() + 1000;
    while (Date.now() < until) expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    close();
  });
});
