import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { assertPublicHttps, isPrivateAddress, pinnedFetch, readLimited } from "./safe-fetch.js";

describe("server-side fetch guard", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "0.0.0.0",
    "::1",
    "fd00::1",
    "fe80::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::7f00:1",
    "0:0:0:0:0:ffff:a00:1",
    "::ffff:0a00:0001",
  ])("refuses %s", (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(["8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:808:808"])("allows %s", (ip) => expect(isPrivateAddress(ip)).toBe(false));
  it("refuses http and loopback URLs", async () => {
    await expect(assertPublicHttps(new URL("http://example.com/x"))).rejects.toThrow(/https/);
    await expect(assertPublicHttps(new URL("https://127.0.0.1/x"))).rejects.toThrow(/private/);
    await expect(assertPublicHttps(new URL("https://[::1]/x"))).rejects.toThrow(/private/);
    // The URL parser writes ::ffff:127.0.0.1 in hex; it is still loopback.
    await expect(assertPublicHttps(new URL("https://[::ffff:127.0.0.1]/x"))).rejects.toThrow(/private/);
    await expect(assertPublicHttps(new URL("https://[::ffff:a9fe:a9fe]/latest/meta-data"))).rejects.toThrow(/private/);
  });
});

describe("readLimited", () => {
  it("returns a body within the limit and stops reading one that passes it", async () => {
    expect(await readLimited(new Response("héllo"), 6)).toBe("héllo");
    await expect(readLimited(new Response("x".repeat(100)), 10)).rejects.toThrow("response too large");
    const stream = new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1024)) }); // never ends
    await expect(readLimited(new Response(stream), 10_000)).rejects.toThrow("response too large");
  });
});

describe("pinnedFetch", () => {
  const serve = async (handler: http.RequestListener) => {
    const srv = http.createServer(handler);
    await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
    return { srv, port: (srv.address() as AddressInfo).port };
  };

  it("refuses http and private addresses before connecting", async () => {
    await expect(pinnedFetch("http://example.com/x", { maxBytes: 10, timeoutMs: 1000 })).rejects.toThrow(/https/);
    await expect(pinnedFetch("https://127.0.0.1/x", { maxBytes: 10, timeoutMs: 1000 })).rejects.toThrow(/private/);
    await expect(pinnedFetch("https://10.0.0.1/x", { maxBytes: 10, timeoutMs: 1000 })).rejects.toThrow(/private/);
  });

  it("connects to the pinned address, returns redirects unfollowed, and enforces size and time limits", async () => {
    const { srv, port } = await serve((req, res) => {
      if (req.url === "/moved") return res.writeHead(302, { location: "/elsewhere" }).end();
      if (req.url === "/big") return res.end("x".repeat(10_000));
      if (req.url === "/slow") return setTimeout(() => res.end("late"), 2000);
      res.end(`host=${req.headers.host}`);
    });
    try {
      const o = { maxBytes: 1000, timeoutMs: 500, loopbackHttp: "127.0.0.1" as const };
      const ok = await pinnedFetch(`https://name.test:${port}/`, o);
      expect(await ok.text()).toBe(`host=name.test:${port}`);
      const moved = await pinnedFetch(`https://name.test:${port}/moved`, o);
      expect(moved.status).toBe(302);
      expect(moved.headers.get("location")).toBe("/elsewhere");
      await expect(pinnedFetch(`https://name.test:${port}/big`, o)).rejects.toThrow("response too large");
      await expect(pinnedFetch(`https://name.test:${port}/slow`, o)).rejects.toThrow();
    } finally {
      srv.closeAllConnections();
      srv.close();
    }
  });
});
