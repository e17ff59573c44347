import { describe, expect, it } from "vitest";
import { connectorReach, isPublicHost, otherHost } from "./public-address.js";

describe("connectorReach", () => {
  it("takes a public https address", () => {
    expect(connectorReach("https://switchboard.example.com/0123/mcp")).toBeNull();
    expect(connectorReach("https://8.8.8.8/x/mcp")).toBeNull();
    expect(connectorReach("https://[2001:4860:4860::8888]/x/mcp")).toBeNull();
  });

  it("says a public address over plain http needs https", () => {
    expect(connectorReach("http://switchboard.example.com/0123/mcp")).toBe("not-https");
  });

  it("says a local or private address is not public, whatever the scheme", () => {
    for (const url of [
      "http://localhost:3000/x/mcp",
      "https://localhost/x/mcp",
      "http://127.0.0.1:3000/x/mcp",
      "http://127.1.2.3/x/mcp",
      "http://10.0.0.5/x/mcp",
      "http://192.168.1.20:3000/x/mcp",
      "http://172.16.0.1/x/mcp",
      "http://172.31.255.255/x/mcp",
      "http://[::1]:3000/x/mcp",
      "http://[fe80::1]/x/mcp",
      "http://[fd12::1]/x/mcp",
      "http://[::ffff:127.0.0.1]/x/mcp",
      "https://myhost.local/x/mcp",
      "https://app.localhost/x/mcp",
      "http://myhost:3000/x/mcp",
      "http://169.254.169.254/x/mcp",
      "http://100.100.1.1/x/mcp",
      "http://0.0.0.0:3000/x/mcp",
      "not a url",
    ])
      expect(connectorReach(url), url).toBe("not-public");
  });

  it("keeps the neighbours of private ranges public", () => {
    expect(isPublicHost("172.15.0.1")).toBe(true);
    expect(isPublicHost("172.32.0.1")).toBe(true);
    expect(isPublicHost("192.169.0.1")).toBe(true);
    expect(isPublicHost("11.0.0.1")).toBe(true);
    expect(isPublicHost("localhost.example.com")).toBe(true);
  });
});

describe("otherHost", () => {
  it("is null on PUBLIC_URL's host and port", () => {
    expect(otherHost("http://localhost:3000/server/x", "http://localhost:3000")).toBeNull();
    expect(otherHost("https://SB.example.com/", "https://sb.example.com")).toBeNull();
  });

  it("names the host a page was reached at when it differs", () => {
    expect(otherHost("http://192.168.1.5:3000/", "http://localhost:3000")).toBe("192.168.1.5:3000");
    expect(otherHost("http://localhost:3001/", "http://localhost:3000")).toBe("localhost:3001");
    expect(otherHost("http://127.0.0.1:3000/", "http://localhost:3000")).toBe("127.0.0.1:3000");
  });
});
