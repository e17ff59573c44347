import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { WAITLIST_TEXT } from "~/shared/waitlist.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ SITE_NAME: "Switchboard", COMMUNITY_URL: "https://chat.example.org/mcp" });
});
afterAll(() => t.close());

async function page(path: string) {
  const res = await t.app.request(path);
  return { res, html: await res.text() };
}

describe("server-rendered pages", () => {
  it("renders /docs with every section in the HTML, code highlighted", async () => {
    const { res, html } = await page("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    for (const heading of ["What is MCP?", "Using MCP Servers", "Best Practices", "Additional Resources"]) {
      expect(html).toContain(heading);
    }
    expect(html).toContain("Settings &gt; MCP");
    expect(html).toContain("Add New MCP Server");
    // Streamable HTTP (/mcp) leads: the prose, the connect command and both SDK examples use it ...
    const sse = html.indexOf("/YOUR_PROXY_ID/sse");
    expect(html.indexOf("/YOUR_PROXY_ID/mcp")).toBeGreaterThan(0);
    expect(html.indexOf("/YOUR_PROXY_ID/mcp")).toBeLessThan(sse);
    expect(html).toContain("--transport http");
    expect(html).toContain("streamablehttp_client");
    expect(html).toContain("StreamableHTTPClientTransport");
    expect(html).not.toContain("SSEClientTransport");
    // ... and /sse is shown after them as the older transport, marked deprecated (MCP deprecated HTTP+SSE).
    expect(html).toMatch(/data-testid="sse-deprecated"[^>]*><strong>Deprecated:<\/strong>/);
    expect(html.indexOf('data-testid="sse-deprecated"')).toBeGreaterThan(html.indexOf("StreamableHTTPClientTransport"));
    expect(html).toContain("HTTP+SSE is deprecated in MCP");
    expect(html).toContain("green indicator");
    expect(html).toMatch(/class="hljs-keyword">import</);
    expect(html).toContain("Python");
    expect(html).toContain("TypeScript");
    expect(html).toContain("<title>Documentation - Switchboard</title>");
  });

  it("renders /waitlist with the headline, field and button in the HTML", async () => {
    const { res, html } = await page("/waitlist");
    expect(res.status).toBe(200);
    expect(html).toContain(WAITLIST_TEXT.headline);
    expect(html).toMatch(/<input[^>]*type="email"[^>]*required/);
    expect(html).toContain(WAITLIST_TEXT.button);
  });

  it("lets a visitor without JavaScript join the waitlist through the form", async () => {
    const res = await t.app.request("http://localhost:3000/waitlist", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:3000" },
      body: "email=nojs%40example.com",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Thanks for joining! We&#x27;ll keep you updated.");
    const rows = await t.db.database.pool.query("select email from waitlist");
    expect(rows.rows).toEqual([{ email: "nojs@example.com" }]);
  });

  it("shows the shared header and footer", async () => {
    const { html } = await page("/");
    expect(html).toContain('href="/"');
    expect(html).toMatch(/target="_blank" rel="noopener noreferrer"[^>]*>Workflow Builder/);
    expect(html).not.toContain("Add Server");
    // No sign-in links in the header (the spec); the way in is on the page and in the footer.
    const header = html.slice(html.indexOf("<header"), html.indexOf("</header>"));
    expect(header).not.toMatch(/>(Log in|Sign in|Sign up)</);
    const footer = html.slice(html.indexOf("<footer"), html.indexOf("</footer>"));
    expect(footer).toContain('href="/login"');
    expect(footer).toContain('href="/register"');
    expect(footer).toContain('href="/docs"');
    expect(html).toContain('aria-controls="mobile-menu"');
    expect(html).toContain("building a workflow automation platform for orchestrating work, data and AI");
    expect(html).toContain('href="/waitlist"');
    expect(html).toContain('href="https://chat.example.org/mcp"');
    expect(html).toContain(`© <!-- -->${new Date().getFullYear()}`);
  });

  it("renders dark by default with the theme applied before first paint", async () => {
    const { html } = await page("/");
    expect(html).toMatch(/<html lang="en" class="dark"/);
    const head = html.slice(0, html.indexOf("</head>"));
    expect(head).toContain('localStorage.getItem("theme")');
    // The theme script runs before any stylesheet or module script.
    expect(head.indexOf("localStorage.getItem")).toBeLessThan(head.indexOf('rel="stylesheet"'));
  });

  it.each(["/servers", "/"])("serves the directory at %s", async (path) => {
    const { res, html } = await page(path);
    expect(res.status).toBe(200);
    expect(html).toContain("MCP Servers");
  });

  it("answers an unknown path with the 404 screen and status 404", async () => {
    const { res, html } = await page("/no/such/page");
    expect(res.status).toBe(404);
    expect(html).toContain("404 Page Not Found");
    expect(html).toMatch(/<a[^>]*href="\/"[^>]*>Return to Home<\/a>/);
  });

  it("sends a client-side navigation to log in and back to the page's own address, not its data address", async () => {
    // Loaders get the request as it came (react-router.config.ts), so a navigation in the browser
    // asks /servers/server/new.data?_routes=...; the way back after logging in must still be the page.
    const res = await t.app.request("/servers/server/new.data?_routes=server-new");
    const body = await res.text();
    expect(body).toContain('"/login?redirect=/servers/server/new"');
    expect(body).not.toContain(".data");
    const doc = await t.app.request("/servers/server/new", { redirect: "manual" });
    expect(doc.headers.get("location")).toBe("/login?redirect=/servers/server/new");
  });

  it("sends a Content-Security-Policy without unsafe-inline scripts, and nonces on inline scripts", async () => {
    const { res, html } = await page("/docs");
    const csp = res.headers.get("content-security-policy") ?? "";
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(scriptSrc).not.toContain("unsafe-inline");
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
    expect(nonce).toBeTruthy();
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
    expect(inline.length).toBeGreaterThan(0);
    for (const m of inline) expect(m[1]).toContain(`nonce="${nonce}"`);
    // A fresh nonce per response
    const again = await page("/docs");
    expect(again.res.headers.get("content-security-policy")).not.toContain(nonce!);
  });
});

describe("operator endpoints", () => {
  it("GET /healthz says the process is up", async () => {
    const res = await t.app.request("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("GET /readyz checks the database", async () => {
    const res = await t.app.request("/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready", database: "ok" });
  });

  it("GET /api/openapi.json describes every /api route from the zod schemas", async () => {
    const res = await t.app.request("/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };
    expect(doc.openapi).toBe("3.1.0");
    const post = doc.paths["/waitlist"]?.post;
    expect(post).toBeDefined();
    expect(JSON.stringify(post?.requestBody)).toContain('"email"');
  });

  it("answers an unknown /api path with a JSON 404", async () => {
    const res = await t.app.request("/api/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found", code: "not_found" });
  });

  it("sends an X-Request-Id on every answer", async () => {
    const res = await t.app.request("/healthz");
    expect(res.headers.get("x-request-id")).toMatch(/^[\w-]{8,}$/);
  });
});
