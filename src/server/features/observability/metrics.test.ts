import { describe, expect, it } from "vitest";
import { httpMethodLabel, mcpMethodLabel, routeLabel, statusLabel } from "./labels.js";
import { tokenMatches } from "./routes.js";
import { cleanTracestate, parseTraceparent } from "./trace-context.js";

describe("label values stay within a fixed set", () => {
  it("keeps MCP methods and folds anything a client invents into 'other'", () => {
    expect(mcpMethodLabel("tools/call")).toBe("tools/call");
    expect(mcpMethodLabel("resources/templates/list")).toBe("resources/templates/list");
    expect(mcpMethodLabel("server/discover")).toBe("server/discover");
    expect(mcpMethodLabel("subscriptions/listen")).toBe("subscriptions/listen");
    expect(mcpMethodLabel("tools/call/../../x")).toBe("other");
    expect(mcpMethodLabel(`x${"y".repeat(99)}`)).toBe("other");
  });

  it("keeps the HTTP methods and route patterns, never a path", () => {
    expect(httpMethodLabel("GET")).toBe("GET");
    expect(httpMethodLabel("PROPFIND")).toBe("OTHER");
    expect(routeLabel("/api/deploy/:owner/:name")).toBe("/api/deploy/:owner/:name");
    expect(routeLabel(undefined)).toBe("*");
    expect(routeLabel("/*")).toBe("*");
    expect(statusLabel(404)).toBe("404");
    expect(statusLabel(999)).toBe("other");
  });
});

describe("W3C traceparent", () => {
  const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const span = "00f067aa0ba902b7";

  it("reads trace id, parent span id and flags", () => {
    expect(parseTraceparent(`00-${trace}-${span}-01`)).toEqual({ traceId: trace, spanId: span, traceFlags: 1 });
    expect(parseTraceparent(`00-${trace}-${span}-00`)?.traceFlags).toBe(0);
    // A later version may carry more fields after its four.
    expect(parseTraceparent(`01-${trace}-${span}-01-extra`)?.traceId).toBe(trace);
  });

  it("refuses what the spec calls invalid, so the call starts a new trace", () => {
    for (const bad of [
      undefined,
      "",
      "garbage",
      `00-${trace}-${span}`,
      `00-${trace.toUpperCase()}-${span}-01`,
      `00-${"0".repeat(32)}-${span}-01`,
      `00-${trace}-${"0".repeat(16)}-01`,
      `ff-${trace}-${span}-01`,
      `00-${trace}-${span}-01-extra`,
      `00-${trace}1-${span}-01`,
    ]) {
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
    }
  });

  it("keeps a valid tracestate and drops a malformed one", () => {
    expect(cleanTracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE")).toBe("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
    expect(cleanTracestate("vendor@tenant=x")).toBe("vendor@tenant=x");
    expect(cleanTracestate("no equals sign")).toBeUndefined();
    expect(cleanTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(","))).toBeUndefined();
    expect(cleanTracestate(undefined)).toBeUndefined();
  });
});

describe("the metrics token", () => {
  const token = "a-metrics-token-of-some-length";

  it("matches only the exact bearer token", () => {
    expect(tokenMatches(`Bearer ${token}`, token)).toBe(true);
    expect(tokenMatches(`bearer   ${token}`, token)).toBe(true);
    expect(tokenMatches(undefined, token)).toBe(false);
    expect(tokenMatches("Bearer ", token)).toBe(false);
    expect(tokenMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(tokenMatches(`Bearer ${token.slice(0, -1)}`, token)).toBe(false);
    expect(tokenMatches(`Basic ${token}`, token)).toBe(false);
    expect(tokenMatches(token, token)).toBe(false);
  });
});
