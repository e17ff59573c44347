import { describe, expect, it } from "vitest";
import { customOrigin, domainOfHost } from "./resolve.js";

describe("a custom domain is served as PUBLIC_URL is", () => {
  it("with its scheme and port", () => {
    expect(customOrigin("https://switchboard.example.com", "mcp.example.org")).toBe("https://mcp.example.org");
    expect(customOrigin("http://127.0.0.1:8080", "mcp.example.test")).toBe("http://mcp.example.test:8080");
  });

  it("reads a Host header only on that port", () => {
    expect(domainOfHost("https://switchboard.example.com", "MCP.example.org")).toBe("mcp.example.org");
    expect(domainOfHost("https://switchboard.example.com", "mcp.example.org:443")).toBe("mcp.example.org");
    expect(domainOfHost("https://switchboard.example.com", "mcp.example.org:8443")).toBeNull();
    expect(domainOfHost("http://127.0.0.1:8080", "mcp.example.test:8080")).toBe("mcp.example.test");
    expect(domainOfHost("http://127.0.0.1:8080", "mcp.example.test")).toBeNull();
    expect(domainOfHost("https://switchboard.example.com", "evil.example@mcp.example.org")).toBeNull();
  });
});
