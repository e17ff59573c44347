import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LIMITS } from "./limits";
import { errorText, promptView, resourceView, sessionGone, toolView } from "./result-model";
import { PromptResultView, ToolResultView } from "./ResultView";

const html = (result: unknown) => renderToStaticMarkup(createElement(ToolResultView, { v: toolView(result) }));

describe("a tool result as a person sees it", () => {
  it("shows text with its whitespace, images, audio, resources, links and structured content", () => {
    const out = html({
      content: [
        { type: "text", text: "line 1\n  line 2" },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
        { type: "resource", resource: { uri: "demo://r/1", mimeType: "text/plain", text: "embedded text" } },
        { type: "resource", resource: { uri: "demo://r/2", mimeType: "application/octet-stream", blob: "AAAAAAAA" } },
        { type: "resource_link", name: "Docs", uri: "https://example.com/docs" },
      ],
      structuredContent: { temperature: 21 },
    });
    expect(out).toContain("line 1\n  line 2");
    expect(out).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(out).toContain('<audio controls="" src="data:audio/wav;base64,UklGRg=="');
    expect(out).toContain("embedded text");
    expect(out).toContain("Binary content: 6 B, application/octet-stream");
    expect(out).toMatch(/<a href="https:\/\/example.com\/docs" target="_blank" rel="noopener nofollow ugc"/);
    expect(out).toContain("&quot;temperature&quot;: 21");
    expect(out).not.toContain("The tool reported an error");
  });

  it("renders a hostile server's output inert", () => {
    const out = html({
      content: [
        { type: "text", text: '<img src=x onerror="alert(1)"><script>alert(2)</script>' },
        { type: "resource_link", name: "<b>click</b>", uri: "javascript:alert(3)" },
        { type: "resource_link", name: "data", uri: "data:text/html,<script>alert(4)</script>" },
        { type: "image", mimeType: "image/svg+xml", data: "PHN2ZyBvbmxvYWQ9YWxlcnQoNSk+" },
      ],
    });
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<img src=x");
    expect(out).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(out).toContain("&lt;b&gt;click&lt;/b&gt;");
    expect(out).not.toMatch(/href="(javascript|data):/i);
    expect(out.match(/<a /g)).toBeNull();
    expect(out).not.toContain("data:image/svg");
    expect(out).toContain("This image type (image/svg+xml) is not shown.");
  });

  it("styles an error result as an error", () => {
    expect(html({ content: [{ type: "text", text: "boom" }], isError: true })).toContain("The tool reported an error");
  });

  it("keeps a 10 MB result and a flood of items bounded", () => {
    const started = performance.now();
    const ten = "z".repeat(10 * 1024 * 1024);
    const out = html({ content: [{ type: "text", text: ten }], structuredContent: { big: ten } });
    expect(out.length).toBeLessThan(LIMITS.textChars + LIMITS.jsonChars + 5000);
    expect(out).toContain(`Showing the first 100,000 of ${(10 * 1024 * 1024).toLocaleString("en-US")} characters.`);
    const many = toolView({ content: Array.from({ length: 10_000 }, (_, i) => ({ type: "text", text: `item ${i}` })) });
    expect(many.blocks).toHaveLength(LIMITS.items);
    expect(many.hidden).toBe(10_000 - LIMITS.items);
    expect(renderToStaticMarkup(createElement(ToolResultView, { v: many }))).toContain(
      "Showing the first 100 items; 9,900 more not shown.",
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("shows an unknown shape as JSON rather than nothing", () => {
    expect(toolView({ toolResult: 42 }).blocks[0]).toMatchObject({ kind: "json", title: "Result" });
    expect(toolView({ content: [{ type: "hologram" }] }).blocks[0]).toMatchObject({ kind: "json", title: "Content of type hologram" });
  });
});

describe("prompts, resources and errors", () => {
  it("shows each prompt message with its role", () => {
    const v = promptView({
      description: "Weather",
      messages: [{ role: "user", content: { type: "text", text: "What's weather in Paris?" } }],
    });
    const out = renderToStaticMarkup(createElement(PromptResultView, { v }));
    expect(out).toContain(">user<");
    expect(out).toContain("What&#x27;s weather in Paris?");
  });

  it("shows a read resource's text, and a raster blob as an image", () => {
    expect(resourceView({ contents: [{ uri: "a", text: "hello" }] }).blocks[0]).toMatchObject({
      kind: "resource",
      text: { text: "hello" },
    });
    expect(resourceView({ contents: [{ uri: "b", mimeType: "image/png", blob: "iVBORw0KGgo=" }] }).blocks[0]).toMatchObject({
      image: { ok: true },
    });
  });

  it("gives a JSON-RPC error's code and message", () => {
    expect(errorText(Object.assign(new Error("MCP error -32602: Invalid params"), { code: -32602 }))).toEqual({
      code: -32602,
      message: "MCP error -32602: Invalid params",
    });
    expect(errorText(new Error("fetch failed"))).toEqual({ message: "fetch failed" });
  });

  it("knows when the gateway has forgotten the session, and not for other failures", () => {
    const http = (status: number, body: string) =>
      Object.assign(new Error(`Streamable HTTP error: Error POSTing to endpoint: ${body}`), { code: status });
    expect(sessionGone(http(404, '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'))).toBe(true);
    expect(sessionGone(Object.assign(new Error("MCP error -32001: The session ended before the server answered"), { code: -32001 }))).toBe(
      true,
    );
    // The SDK's own time-out shares the code; a server's 404 inside a result, other statuses and errors do not count.
    expect(sessionGone(Object.assign(new Error("MCP error -32001: Request timed out"), { code: -32001, data: { timeout: 60_000 } }))).toBe(
      false,
    );
    expect(sessionGone(Object.assign(new Error("Not found"), { code: 404 }))).toBe(false);
    expect(sessionGone(http(502, "Bad gateway"))).toBe(false);
    expect(sessionGone(Object.assign(new Error("MCP error -32602: Invalid params"), { code: -32602 }))).toBe(false);
    expect(sessionGone(new TypeError("Failed to fetch"))).toBe(false);
    expect(sessionGone("404")).toBe(false);
  });
});
