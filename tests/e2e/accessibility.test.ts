// WCAG 2.2 AA: axe-core on every route of the spec's route table (and the pages decisions.md adds),
// in both themes, signed out and signed in (an admin, so the admin page is there too), with a
// deployment running on the server page (its playground, request log and tool cards showing).
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_TEXT } from "../../src/shared/deployments.js";
import { axeViolations, settled } from "./axe.js";
import { appUrl, launchBrowser, newPage } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;
let owned = "";

beforeAll(async () => {
  browser = await launchBrowser();
  const { page, context } = await newPage(browser);
  await registerConfirmAndLogIn(page, "a11y-e2e@example.com", "a11y-password-1");
  // Something on every page: an owned server, an API key, a pending submission, a running deployment.
  owned = await page.evaluate(async () => {
    const json = { "content-type": "application/json" };
    const me = (await (await fetch("/api/auth/me")).json()) as { user: { username: string } };
    const qn = `${me.user.username}/a11y`;
    await fetch("/api/servers", { method: "POST", headers: json, body: JSON.stringify({ qualifiedName: qn, displayName: "A11y Server", description: "For the audit", repositoryUrl: "https://github.com/acme/a11y", keywords: "audit", connections: [{ type: "http", url: "https://a11y.example/mcp", configSchema: { type: "object", required: ["apiKey"], properties: { apiKey: { type: "string" } } } }] }) });
    await fetch("/api/auth/apikeys", { method: "POST", headers: json, body: JSON.stringify({ name: "audit key" }) });
    await fetch("/api/mcp-servers", { method: "POST", headers: json, body: JSON.stringify({ id: "a11y-pending", name: "A11y Pending", description: "Waiting for review", category: "Data & Storage", type: "Community", source: "user_submitted", tags: ["audit"], url: "https://a11y.example" }) });
    const d = await fetch("/api/deploy/everything", { method: "POST", headers: json, body: JSON.stringify({ env: {} }) });
    if (d.status !== 202) throw new Error(`deploy: ${d.status}`);
    return qn;
  });
  await page.goto("/server/everything");
  await page.getByRole("region", { name: "Deployment" }).getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
  signedIn = await context.storageState();
  await context.close();
}, 180_000);

afterAll(async () => {
  const { page, context } = await newPage(browser, { storageState: signedIn });
  await page.goto("/server/everything");
  await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.stop }).click();
  await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
  await context.close();
  await browser?.close();
});

const SIGNED_OUT = ["/", "/servers", "/docs", "/waitlist", "/login", "/register", "/forgot-password", "/reset-password?token=not-a-token", "/servers/add", "/server/everything", "OWNED", "/subscription", "/no-such-page"];
const SIGNED_IN = ["/", "/servers?q=memory", "/docs", "/servers/add", "/server/everything", "OWNED", "/servers/server/new", "OWNED_EDIT", "/servers/apikeys", "/profile", "/deployments", "/subscription", "/admin/mcp-servers", "/no-such-page"];

async function audit(paths: string[], theme: "dark" | "light", state?: typeof signedIn): Promise<string[]> {
  const context = await browser.newContext({ baseURL: appUrl(), bypassCSP: true, storageState: state });
  await context.addInitScript((t) => window.localStorage.setItem("theme", t), theme);
  const page = await context.newPage();
  const found: string[] = [];
  for (const p of paths) {
    const path = p === "OWNED" ? `/server/${owned}` : p === "OWNED_EDIT" ? `/servers/server/${owned}/edit` : p;
    await page.goto(path);
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(theme === "dark");
    for (const v of await axeViolations(page)) found.push(`${theme} ${path}: ${v}`);
  }
  await context.close();
  return found;
}

describe("accessibility (axe-core, WCAG 2.0/2.1/2.2 A and AA)", () => {
  it("the audit finds a violation where there is one (a grey on grey text, an unlabelled field)", async () => {
    const context = await browser.newContext({ baseURL: appUrl(), bypassCSP: true });
    const page = await context.newPage();
    await page.goto("/docs");
    await settled(page);
    await page.evaluate(() => {
      const p = document.createElement("p");
      p.textContent = "hard to read";
      p.style.cssText = "color:#777;background:#888";
      document.querySelector("main")!.append(p, Object.assign(document.createElement("input"), { type: "text" }));
    });
    const found = (await axeViolations(page)).map((v) => v.split(" ")[0]);
    expect(found).toEqual(expect.arrayContaining(["color-contrast", "label"]));
    await context.close();
  });

  for (const theme of ["dark", "light"] as const) {
    it(`has no violation on any page signed out (${theme})`, async () => {
      expect(await audit(SIGNED_OUT, theme)).toEqual([]);
    }, 120_000);

    it(`has no violation on any page signed in, with a deployment running (${theme})`, async () => {
      expect(await audit(SIGNED_IN, theme, signedIn)).toEqual([]);
    }, 180_000);
  }
});
