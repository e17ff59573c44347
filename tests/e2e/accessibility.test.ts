// WCAG 2.2 AA: axe-core on every route of the spec's route table (and the pages decisions.md adds),
// in both themes, signed out and signed in (an admin, so the admin page is there too), with a
// deployment running on the server page (its playground, request log and tool cards showing).
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { axeViolations, settled } from "./axe.js";
import { appUrl, launchBrowser, newPage } from "./browser.js";
import { confirmDialog, registerConfirmAndLogIn } from "./helpers.js";

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
    await fetch("/api/servers", {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        qualifiedName: qn,
        displayName: "A11y Server",
        description: "For the audit",
        repositoryUrl: "https://github.com/acme/a11y",
        keywords: "audit",
        connections: [
          {
            type: "http",
            url: "https://a11y.example/mcp",
            configSchema: { type: "object", required: ["apiKey"], properties: { apiKey: { type: "string" } } },
          },
        ],
      }),
    });
    await fetch("/api/auth/apikeys", { method: "POST", headers: json, body: JSON.stringify({ name: "audit key" }) });
    // An organisation with a pending invitation (its page shows members, roles and invitations).
    await fetch("/api/orgs", { method: "POST", headers: json, body: JSON.stringify({ name: "A11y Org", slug: "a11y-org" }) });
    // A server the organisation owns (its page names the organisation as owner).
    await fetch("/api/servers", {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        qualifiedName: "a11y-org/team-tool",
        displayName: "A11y Team Tool",
        description: "Owned by the organisation",
        connections: [{ type: "http", url: "https://team.a11y.example/mcp" }],
      }),
    });
    await fetch("/api/orgs/a11y-org/invitations", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "colleague@example.com", role: "admin" }),
    });
    await fetch("/api/mcp-servers", {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        id: "a11y-pending",
        name: "A11y Pending",
        description: "Waiting for review",
        category: "Data & Storage",
        type: "Community",
        source: "user_submitted",
        tags: ["audit"],
        url: "https://a11y.example",
      }),
    });
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
  await confirmDialog(page, DEPLOY_TEXT.stop);
  await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
  await context.close();
  await browser?.close();
});

const SIGNED_OUT = [
  "/",
  "/servers",
  "/docs",
  "/waitlist",
  "/login",
  "/register",
  "/forgot-password",
  "/reset-password?token=not-a-token",
  "/verify-email?token=not-a-token",
  "/oauth/error?error=invalid_request",
  "/servers/add",
  "/server/everything",
  "OWNED",
  "/subscription",
  "/invitations/not-an-invitation",
  "/no-such-page",
];
const SIGNED_IN = [
  "/",
  "/servers?q=memory",
  "/docs",
  "/servers/add",
  "/server/everything",
  "OWNED",
  "/servers/server/new",
  "/servers/server/new?as=a11y-org",
  "/server/a11y-org/team-tool",
  "OWNED_EDIT",
  "/servers/apikeys",
  "/profile",
  "/deployments",
  "/connections",
  "/toolsets",
  "/submissions",
  "/orgs",
  "/orgs/a11y-org",
  "/invitations/not-an-invitation",
  "/audit",
  "/subscription",
  "/admin/mcp-servers",
  "/no-such-page",
];

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

/** What makes the page wider than its window, as "N px wide at W (the culprit)", or null. */
function overflow(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    // The layout viewport's width (a phone browser may zoom out to a wider page; this may not).
    const inner = Math.min(window.innerWidth, document.documentElement.clientWidth);
    if (document.documentElement.scrollWidth <= inner) return null;
    // The culprit: the deepest element whose right edge passes the window's.
    // What a scrolling box (a code block, a table) holds is not it: that box scrolls itself.
    const clipped = (e: Element) => {
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== "visible") return true;
      return false;
    };
    const over = [...document.querySelectorAll("body *")].filter(
      (e) => e.getBoundingClientRect().right > inner + 1 && e.getClientRects().length > 0 && !clipped(e),
    );
    const leaf = over.find((e) => !over.some((o) => o !== e && e.contains(o))) ?? over[0];
    const name = leaf
      ? `${leaf.tagName.toLowerCase()}${leaf.id ? `#${leaf.id}` : ""}.${String(leaf.getAttribute("class") ?? "")
          .split(" ")
          .slice(0, 3)
          .join(".")}`
      : "?";
    return `${document.documentElement.scrollWidth} px wide at ${inner} (${name})`;
  });
}

/** Each page at a phone's width: what is wider than the window. A code block or table may scroll inside itself; the page may not. */
async function tooWide(paths: string[], width: number, state?: typeof signedIn): Promise<string[]> {
  const context = await browser.newContext({ baseURL: appUrl(), bypassCSP: true, storageState: state, viewport: { width, height: 800 } });
  const page = await context.newPage();
  const found: string[] = [];
  for (const p of paths) {
    const path = p === "OWNED" ? `/server/${owned}` : p === "OWNED_EDIT" ? `/servers/server/${owned}/edit` : p;
    await page.goto(path);
    await settled(page);
    const wide = await overflow(page);
    if (wide) found.push(`${path}: ${wide}`);
  }
  await context.close();
  return found;
}

describe("phones (360-414 px)", () => {
  it("the check finds a page wider than the window (a line that cannot wrap)", async () => {
    const context = await browser.newContext({ baseURL: appUrl(), viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    await page.goto("/docs");
    await settled(page);
    expect(await overflow(page)).toBeNull();
    await page.evaluate(() => {
      const d = document.createElement("div");
      d.id = "too-wide";
      d.style.cssText = "width:900px;height:10px";
      document.body.append(d);
    });
    expect(await overflow(page)).toMatch(/^\d+ px wide at 390 \(div#too-wide\./);
    await context.close();
  });

  for (const width of [414, 390, 360]) {
    it(`every page fits ${width} px without scrolling sideways, signed out and signed in with a deployment running`, async () => {
      expect([...(await tooWide(SIGNED_OUT, width)), ...(await tooWide(SIGNED_IN, width, signedIn))]).toEqual([]);
    }, 180_000);
  }

  it("on a phone the Deployment panel comes before the playground and the request log", async () => {
    const context = await browser.newContext({ baseURL: appUrl(), storageState: signedIn, viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    await page.goto("/server/everything");
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    const y = async (name: string) => (await page.getByRole("heading", { name, exact: true }).first().boundingBox())!.y;
    const deployment = await y("Deployment");
    expect(deployment).toBeLessThan(await y("Playground"));
    expect(deployment).toBeLessThan(await y("Request log"));
    await page.screenshot({ path: "test-results/server-page-390.png" });
    await page.getByRole("heading", { name: "Playground" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/server-page-390-playground.png" });
    await context.close();
  });
});

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
