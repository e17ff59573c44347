import { describe, expect, it } from "vitest";
import { assertPublicHttps, isPrivateAddress, readLimited } from "./safe-fetch.js";

describe("server-side fetch guard", () => {
  it.each(["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1"])("refuses %s", (ip) =>
    expect(isPrivateAddress(ip)).toBe(true),
  );
  it.each(["8.8.8.8", "1.1.1.1", "2606:4700::1111"])("allows %s", (ip) => expect(isPrivateAddress(ip)).toBe(false));
  it("refuses http and loopback URLs", async () => {
    await expect(assertPublicHttps(new URL("http://example.com/x"))).rejects.toThrow(/https/);
    await expect(assertPublicHttps(new URL("https://127.0.0.1/x"))).rejects.toThrow(/private/);
    await expect(assertPublicHttps(new URL("https://[::1]/x"))).rejects.toThrow(/private/);
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
