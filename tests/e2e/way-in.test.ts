// A newcomer's way in and the hand-off to a client (issue 52, points 4 and 5): signed out, Log in
// and Sign up are on the home page, a server page's Deploy and Connect panels and the footer
// (never the header), each coming back to the page; the footer and the server page link the docs,
// which lead with Streamable HTTP; a key made from a server page goes back there and fills the
// snippets once; connector tabs say a local http address is out of their reach; an admin on
// another host than PUBLIC_URL's is told.
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { WAY_IN_TEXT } from "~/shared/way-in.js";
import { sdkClient, textOf } from "../support/gateway.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const shots = "/tmp/shots";

/** The 'Log in' and 'Sign up' links inside `scope`, as their addresses. */
async function wayIn(scope: ReturnType<Page["locator"]>) {
  return {
    logIn: await scope.getByRole("link", { name: AUTH_TEXT.logIn, exact: true }).getAttribute("href"),
    signUp: await scope.getByRole("link", { name: AUTH_TEXT.signUp, exact: true }).getAttribute("href"),
  };
}

describe("the way in, signed out", () => {
  it("offers Log in and Sign up on the home page and in the footer, never in the header, and the footer links the docs", async () => {
    for (const width of [1280, 390]) {
      const { page } = await newPage(browser, { viewport: { width, height: 900 } });
      const problems = problemsOf(page);
      await page.goto("/");
      const header = page.getByRole("banner");
      await header.getByRole("link", { name: /Switchboard/ }).waitFor();
      expect(await header.getByRole("link", { name: AUTH_TEXT.logIn }).count()).toBe(0);
      expect(await header.getByRole("link", { name: AUTH_TEXT.signUp }).count()).toBe(0);
      const main = page.getByRole("main");
      expect(await wayIn(main.getByTestId("way-in"))).toEqual({ logIn: "/login", signUp: "/register" });
      await main.getByText(WAY_IN_TEXT.homeInvite).waitFor();
      const footer = page.getByRole("contentinfo");
      expect(await wayIn(footer)).toEqual({ logIn: "/login", signUp: "/register" });
      expect(await footer.getByRole("link", { name: WAY_IN_TEXT.docsLink }).getAttribute("href")).toBe("/docs");
      await page.screenshot({ path: `${shots}/home-signed-out-${width}.png` });
      await footer.screenshot({ path: `${shots}/footer-signed-out-${width}.png` });
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it("the docs, from the footer, lead with Streamable HTTP at /mcp and show /sse after as the older transport", async () => {
    for (const width of [1280, 390]) {
      const { page } = await newPage(browser, { viewport: { width, height: 900 } });
      await page.goto("/");
      await page.getByRole("contentinfo").getByRole("link", { name: WAY_IN_TEXT.docsLink }).click();
      await page.waitForURL((u) => u.pathname === "/docs");
      const article = page.getByRole("article");
      for (const h of ["What is MCP?", "Using MCP Servers", "Best Practices", "Additional Resources"])
        await article.getByRole("heading", { name: h, exact: true }).waitFor();
      const text = (await article.textContent())!;
      const mcp = text.indexOf("/YOUR_PROXY_ID/mcp");
      const sse = text.indexOf("/YOUR_PROXY_ID/sse");
      expect(mcp).toBeGreaterThan(0);
      expect(sse).toBeGreaterThan(mcp);
      expect(await article.getByLabel("Connect command", { exact: true }).textContent()).toContain(
        `claude mcp add --transport http my-server ${appUrl()}/YOUR_PROXY_ID/mcp`,
      );
      await article.getByRole("heading", { name: "The older HTTP+SSE transport" }).waitFor();
      expect(await article.getByTestId("sse-deprecated").textContent()).toContain(`${appUrl()}/YOUR_PROXY_ID/sse`);
      await page.screenshot({ path: `${shots}/docs-${width}.png` });
      await article.getByTestId("sse-deprecated").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}/docs-sse-${width}.png` });
      await page.context().close();
    }
  });

  it("offers them on a server page's Deploy and Connect panels, with the docs linked, and a log-in comes back to the page", async () => {
    const email = `way-in-${Date.now()}@example.com`;
    const first = await newPage(browser);
    await registerConfirmAndLogIn(first.page, email, "way-in-password-1");
    await first.context.close();

    for (const width of [1280, 390]) {
      const { page, context } = await newPage(browser, { viewport: { width, height: 900 } });
      const problems = problemsOf(page);
      await page.goto("/server/everything");
      const back = { logIn: "/login?redirect=%2Fserver%2Feverything", signUp: "/register?redirect=%2Fserver%2Feverything" };
      const deployment = page.getByRole("region", { name: "Deployment" });
      await deployment.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
      await deployment.getByText(WAY_IN_TEXT.deployInvite).waitFor();
      expect(await wayIn(deployment)).toEqual(back);
      const connect = page.getByRole("region", { name: "Connect", exact: true });
      await connect.getByText(WAY_IN_TEXT.connectInvite).waitFor();
      expect(await wayIn(connect.getByTestId("way-in"))).toEqual(back);
      expect(await connect.getByRole("link", { name: WAY_IN_TEXT.docsLink }).getAttribute("href")).toBe("/docs");
      expect(await wayIn(page.getByRole("contentinfo"))).toEqual(back);
      await page.screenshot({ path: `${shots}/server-signed-out-${width}.png`, fullPage: width === 1280 });
      await connect.screenshot({ path: `${shots}/server-connect-signed-out-${width}.png` });
      expect(problems).toEqual([]);
      if (width === 1280) {
        await deployment.getByRole("link", { name: AUTH_TEXT.logIn, exact: true }).click();
        await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === "/server/everything");
        await page.getByLabel("Email").fill(email);
        await page.getByLabel("Password").fill("way-in-password-1");
        await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
        await page.waitForURL((u) => u.pathname === "/server/everything");
        await page.getByRole("button", { name: /^Account menu for / }).waitFor();
        expect(await page.getByTestId("way-in").count()).toBe(0);
      }
      await context.close();
    }
  });
});

describe("one-click connect", () => {
  it("a key made from a server page goes back to it, filled into every snippet once, and never rides in a URL", async () => {
    const { page, context } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `one-click-${Date.now()}@example.com`, "one-click-password-1");
    await page.goto("/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await panel.getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const url = (await panel.locator("code").first().textContent())!;
    const connect = panel.getByTestId("hosted-connect");
    expect(await connect.locator("pre").textContent()).toContain("Bearer <your API key>");
    // The older transport's address is offered beside /mcp.
    expect(await connect.getByTestId("older-sse").textContent()).toContain(url.replace(/\/mcp$/, "/sse"));
    // Connectors call from their own cloud: a local http address is out of their reach, and the page says how to mend it.
    await connect.getByRole("radio", { name: OAUTH_TEXT.connectorClaude }).click();
    expect(await connect.getByTestId("connector-unreachable").textContent()).toBe(
      `${WAY_IN_TEXT.unreachable("Claude.ai", url, "not-public")} ${WAY_IN_TEXT.unreachableFix}`,
    );
    await connect.getByRole("radio", { name: OAUTH_TEXT.connectorChatGpt }).click();
    await connect
      .getByTestId("connector-unreachable")
      .getByText(/^ChatGPT cannot reach/)
      .waitFor();
    await connect.getByRole("radio", { name: "Cursor" }).click();
    await connect.getByText(WAY_IN_TEXT.installNeedsKey).waitFor();

    // Every address the browser is sent to or asks for, to show the key never rides in one.
    const addresses: string[] = [];
    page.on("request", (r) => addresses.push(r.url()));
    await connect.getByRole("link", { name: "create one for this server only" }).click();
    await page.waitForURL((u) => u.pathname === "/servers/apikeys" && u.searchParams.get("for") === "everything");
    await page.getByTestId("key-returns").getByText(WAY_IN_TEXT.returnsTo("everything")).waitFor();
    expect(await page.getByRole("link", { name: WAY_IN_TEXT.backTo("everything") }).getAttribute("href")).toBe("/server/everything");
    await page.screenshot({ path: `${shots}/api-keys-from-server-1280.png`, fullPage: true });
    await page.getByRole("button", { name: "Generate API Key" }).click();
    await page.waitForURL((u) => u.pathname === "/server/everything");

    const filled = panel.getByTestId("new-key-filled");
    await filled.getByText(WAY_IN_TEXT.newKeyTitle("everything client")).waitFor();
    const key = (await filled.locator("code").textContent())!.trim();
    expect(key).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    await connect.getByRole("radio", { name: "Claude Code", exact: true }).click();
    expect(await connect.locator("pre").textContent()).toBe(
      `claude mcp add --transport http everything ${url} --header "Authorization: Bearer ${key}"`,
    );
    await connect.getByRole("radio", { name: "Cursor" }).click();
    expect(JSON.parse((await connect.locator("pre").textContent())!)).toEqual({
      mcpServers: { everything: { url, headers: { Authorization: `Bearer ${key}` } } },
    });
    const cursor = new URL((await connect.getByRole("link", { name: WAY_IN_TEXT.installCursor }).getAttribute("href"))!);
    expect(cursor.protocol + cursor.host + cursor.pathname).toBe("cursor:anysphere.cursor-deeplink/mcp/install");
    expect(JSON.parse(atob(cursor.searchParams.get("config")!))).toEqual({ url, headers: { Authorization: `Bearer ${key}` } });
    await connect.getByRole("radio", { name: "VS Code" }).click();
    const vscode = (await connect.getByRole("link", { name: WAY_IN_TEXT.installVscode }).getAttribute("href"))!;
    expect(JSON.parse(decodeURIComponent(vscode.replace(/^vscode:mcp\/install\?/, "")))).toMatchObject({ name: "everything", url });
    await connect.getByRole("radio", { name: "Claude Desktop", exact: true }).click();
    expect(await connect.locator("pre").textContent()).toContain(`Authorization:Bearer ${key}`);
    await connect.getByRole("radio", { name: WAY_IN_TEXT.plainLabel }).click();
    expect(await connect.locator("pre").textContent()).toContain(`Header: Authorization: Bearer ${key}`);
    await panel.screenshot({ path: `${shots}/server-key-filled-1280.png` });
    await page.setViewportSize({ width: 390, height: 900 });
    await panel.screenshot({ path: `${shots}/server-key-filled-390.png` });
    await page.setViewportSize({ width: 1280, height: 900 });

    // It is the real key: a client connects with what the page shows.
    const client = await sdkClient(url, key);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "one click" } }))).toContain("one click");
    await client.close();
    expect(addresses.filter((a) => a.includes(key))).toEqual([]);
    expect(page.url()).not.toContain(key);
    // The cookie that carried it was read once and is gone.
    expect((await context.cookies()).map((c) => c.name)).not.toContain("sb_new_key");

    // Once: a reload shows the placeholder again.
    await page.reload();
    await connect.locator("pre").waitFor();
    expect(await panel.getByTestId("new-key-filled").count()).toBe(0);
    expect(await connect.locator("pre").textContent()).toContain("Bearer <your API key>");
    expect(await page.content()).not.toContain(key);

    // The page had no problems; then the deployment goes (the page's request log may poll it once more and get 404: that is the stop, not a problem).
    expect(problems).toEqual([]);
    const [deployment] = await page.evaluate(async () => (await (await fetch("/api/deployments")).json()) as { id: string }[]);
    await page.evaluate((id) => fetch(`/api/deployments/${id}`, { method: "DELETE" }), deployment!.id);
  }, 180_000);

  it("tells an admin who reached the site on another host than PUBLIC_URL's, and no one else", async () => {
    const email = `other-host-${Date.now()}@example.com`;
    const { page, context } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    await registerConfirmAndLogIn(page, email, "other-host-password-1");
    const other = appUrl().replace("localhost", "127.0.0.1");
    // The same session on the other host (a page's own GET needs no Origin).
    const copyCookies = async () => context.addCookies((await context.cookies(appUrl())).map((c) => ({ ...c, domain: "127.0.0.1" })));
    await copyCookies();
    await page.goto(`${other}/`);
    await page.getByRole("heading", { name: "MCP Servers" }).waitFor();
    expect(await page.getByTestId("other-host").count()).toBe(0);

    const pool = new pg.Pool({ connectionString: inject("appDatabaseUrl"), max: 1 });
    try {
      await pool.query("update profiles set is_admin = true where email = $1", [email]);
    } finally {
      await pool.end();
    }
    await page.goto(`${other}/`);
    expect(await page.getByTestId("other-host").textContent()).toBe(
      `${WAY_IN_TEXT.otherHost(new URL(other).host, appUrl())} ${WAY_IN_TEXT.otherHostFix}`,
    );
    await page.screenshot({ path: `${shots}/other-host-1280.png` });
    await page.setViewportSize({ width: 390, height: 900 });
    await page.screenshot({ path: `${shots}/other-host-390.png` });
    // At PUBLIC_URL's own address, nothing to say.
    await page.goto("/");
    await page.getByRole("heading", { name: "MCP Servers" }).waitFor();
    expect(await page.getByTestId("other-host").count()).toBe(0);
  });
});
