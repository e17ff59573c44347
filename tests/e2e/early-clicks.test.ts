// A busy machine: the CPU slowed down eightfold (DevTools' CPU throttling), and each page's main
// form pressed the moment it shows, without waiting for the page's scripts. Every press posts,
// once, and the visitor sees the answer: before the scripts have loaded, while the page
// hydrates (React then hydrates whatever is pressed at once, and a part that renders otherwise
// with scripts is replaced under the pointer), and after.
import type { Browser, BrowserContext, Locator, Page, Request, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT, PROFILE_TEXT } from "~/shared/auth.js";
import { ADMIN_TEXT, SUBMIT_TEXT } from "~/shared/catalog.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
let admin: { context: BrowserContext; page: Page };
let maker: { context: BrowserContext; page: Page; email: string; username: string };
const PASSWORD = "early-password-1";
const stamp = Date.now();

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await newPage(browser);
  await registerConfirmAndLogIn(admin.page, "early-e2e@example.com", PASSWORD);
  const email = `early-maker-${stamp}@example.com`;
  maker = { ...(await newPage(browser)), email, username: email.split("@")[0]! };
  await registerConfirmAndLogIn(maker.page, email, PASSWORD);
}, 120_000);
afterAll(() => browser?.close());

type Phase = "loading" | "hydrating" | "hydrated";

/** How far the page is: its scripts not yet running, React hydrating it, or hydrated (root.tsx marks it). */
function phaseOf(page: Page): Promise<Phase> {
  return page.evaluate(() =>
    document.documentElement.hasAttribute("data-hydrated")
      ? "hydrated"
      : Object.keys(document).some((k) => k.startsWith("_reactListening"))
        ? "hydrating"
        : "loading",
  );
}

/** The page slowed down as on a busy machine, with the posts it sends recorded. */
async function slowPage(context: BrowserContext): Promise<{ page: Page; posts: Request[] }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 8 });
  const posts: Request[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST") posts.push(r);
  });
  return { page, posts };
}

/** Holds the page's own scripts (the built bundle under /assets) back until `release` is called. */
async function holdScripts(page: Page): Promise<() => Promise<void>> {
  const scripts = /\/assets\/.*\.js(\?.*)?$/;
  const held: Route[] = [];
  await page.route(scripts, (route) => void held.push(route));
  return async () => {
    await page.unroute(scripts);
    // A script the page has left behind (it went to the post's answer) is no longer wanted.
    for (const route of held) await route.continue().catch(() => undefined);
  };
}

/** Opens `path` and returns as soon as the browser has its answer (nothing waits for scripts). */
async function open(page: Page, path: string) {
  await page.goto(path, { waitUntil: "commit" });
}

/**
 * Presses `target` the moment it shows: the pointer's own events at its place, with none of the
 * waits for a settled page a test tool adds. Returns how far the page was just before.
 */
async function pressNow(page: Page, target: Locator): Promise<Phase> {
  // Hydration may swap the element for its own between two looks (the inline confirmation for the
  // dialog): then the one drawn now is looked for again.
  for (let tries = 0; ; tries++) {
    await target.waitFor();
    const box = await target
      .evaluate((el) => el.scrollIntoView({ block: "center" }))
      .then(() => target.boundingBox())
      .catch(() => null);
    if (!box) {
      if (tries < 20) continue;
      throw new Error("the element to press never stayed on the page");
    }
    const phase = await phaseOf(page);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    return phase;
  }
}

/**
 * No press was sent twice: at most one post to the action of the page at `path`, whichever sent it,
 * the plain form (to `path`) or the page's scripts (React Router's `path.data`). That one arrived is
 * shown by what the user sees after it; the count is only an upper bound, because Chromium does
 * not always report a form's post made while the page is still loading, nor its multipart body.
 */
function notSentTwice(posts: Request[], path: string): void {
  const to = posts.filter((r) => {
    const p = new URL(r.url()).pathname;
    return p === path || p === `${path}.data`;
  });
  expect(to.length, to.map((r) => r.url()).join(", ")).toBeLessThanOrEqual(1);
}

/** A submission pending review, sent by the maker. */
async function submission(id: string): Promise<void> {
  const status = await maker.page.evaluate(async (id) => {
    const r = await fetch("/api/mcp-servers", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id,
        name: id,
        description: "Pressed early on a busy machine (zebrafinch)",
        category: "Featured",
        type: "Community",
        source: "user_submitted",
        tags: ["early"],
        url: "https://example.com/mcp",
      }),
    });
    return r.status;
  }, id);
  expect(status).toBe(201);
  expect((await fetch(`${appUrl()}/api/mcp-servers/${id}`)).status).toBe(404);
}

describe("forms pressed at once on a busy machine", () => {
  // The reported case, in each phase of the page's load: the admin's Approve.
  for (const when of ["loading", "hydrating", "hydrated"] as const) {
    it(`admin: Approve pressed while the page is ${when} approves the entry, with one post`, async () => {
      const id = `early-${when}-${stamp}`;
      await submission(id);
      const { page, posts } = await slowPage(admin.context);
      // Before the scripts load: the test holds them back until the press is made.
      const release = when === "loading" ? await holdScripts(page) : async () => {};
      await open(page, "/admin/mcp-servers");
      const card = page.locator(`[data-server="${id}"]`);
      const approve = card.getByRole("button", { name: "Approve", exact: true });
      if (when === "hydrating")
        await page.waitForFunction(() => Object.keys(document).some((k) => k.startsWith("_reactListening")), null, { polling: 20 });
      if (when === "hydrated") await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 60_000 });
      expect(await pressNow(page, approve)).toBe(when);
      await release();

      // What the admin sees: the page, hydrated, lists the entry among the approved ones.
      await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 60_000 });
      await page.getByRole("tab", { name: /^Approved Servers/ }).click();
      await card.getByText(ADMIN_TEXT.approvedBadge, { exact: true }).waitFor({ timeout: 30_000 });
      expect((await fetch(`${appUrl()}/api/mcp-servers/${id}`)).status).toBe(200);
      notSentTwice(posts, "/admin/mcp-servers");
      expect(problemsOf(page)).toEqual([]);
      await page.close();
    }, 120_000);
  }

  // Each page's main form, pressed the moment it can be: before its scripts load (the test holds
  // them back until the press is made), and at once with the scripts arriving as they will.
  for (const mode of ["before its scripts load", "at once"] as const) {
    const n = mode === "at once" ? 2 : 1;
    /** Opens `path` slowed down (holding its scripts back in the first mode), fills it in, presses `button`. */
    async function pressForm(context: BrowserContext, path: string, fill: (page: Page) => Promise<void>, button: (page: Page) => Locator) {
      const { page, posts } = await slowPage(context);
      const release = mode === "at once" ? async () => {} : await holdScripts(page);
      await open(page, path);
      await fill(page);
      const phase = await pressNow(page, button(page));
      if (mode !== "at once") expect(phase).toBe("loading");
      await release();
      return { page, posts };
    }

    it(`directory: a search pressed ${mode} lists what it finds`, async () => {
      const { page } = await pressForm(
        maker.context,
        "/",
        (page) => page.getByLabel("Search servers").fill("zebrafinch"),
        (page) => page.getByRole("button", { name: "Search", exact: true }),
      );
      await page.waitForURL((u) => u.searchParams.get("q") === "zebrafinch", { waitUntil: "commit" });
      // The entries the admin approved above, found by a word of their description.
      await page.getByRole("link", { name: new RegExp(`early-hydrated-${stamp}`) }).waitFor({ timeout: 30_000 });
      await page.close();
    }, 90_000);

    it(`add server: Submit pressed ${mode} submits the entry for review`, async () => {
      const name = `Early Add ${n} ${stamp}`;
      const { page, posts } = await pressForm(
        maker.context,
        "/servers/add",
        async (page) => {
          await page.getByLabel("Server Name *").fill(name);
          await page.getByLabel("Description *").fill("Added on a busy machine.");
          await page.getByLabel("Tags *").fill("early");
        },
        (page) => page.getByRole("button", { name: SUBMIT_TEXT.submit }),
      );
      await page.getByText(SUBMIT_TEXT.success).waitFor({ timeout: 30_000 });
      notSentTwice(posts, "/servers/add");
      // Pending review: the admin sees it (and rejects it, so no pending entry is left behind).
      const id = `early-add-${n}-${stamp}`;
      const pending = await admin.page.evaluate(
        async () => (await (await fetch("/api/admin/mcp-servers?status=pending")).json()) as { data: { id: string }[] },
      );
      expect(pending.data.map((s) => s.id)).toContain(id);
      const rejected = await admin.page.evaluate(
        async (id) => (await fetch(`/api/admin/mcp-servers/${id}`, { method: "DELETE" })).status,
        id,
      );
      expect(rejected).toBe(200);
      await page.close();
    }, 90_000);

    it(`API keys: Generate pressed ${mode} makes the key and shows it once`, async () => {
      // A second post of the same name would be refused ('A key with this name exists') instead.
      const { page, posts } = await pressForm(
        maker.context,
        "/servers/apikeys",
        (page) => page.getByLabel("New key name").fill(`pressed early ${n}`),
        (page) => page.getByRole("button", { name: "Generate API Key" }),
      );
      await page.getByText(API_KEY_TEXT.generated).waitFor({ timeout: 30_000 });
      expect((await page.getByTestId("new-key-value").textContent())!.trim()).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
      notSentTwice(posts, "/servers/apikeys");
      await page.close();
    }, 90_000);

    it(`profile: Save pressed ${mode} saves the new username`, async () => {
      const renamed = `${maker.username}-${n}`;
      const { page, posts } = await pressForm(
        maker.context,
        "/profile",
        (page) => page.getByLabel("Username").fill(renamed),
        (page) => page.getByRole("button", { name: PROFILE_TEXT.save }),
      );
      await page.getByText(PROFILE_TEXT.updated).waitFor({ timeout: 30_000 });
      await page
        .getByRole("button", { name: `Account menu for ${renamed}` })
        .first()
        .waitFor({ timeout: 30_000 });
      notSentTwice(posts, "/profile");
      maker.username = renamed;
      await page.close();
    }, 90_000);

    it(`log in: Log in pressed ${mode} signs in`, async () => {
      const context = await browser.newContext({ baseURL: appUrl() });
      const { page, posts } = await pressForm(
        context,
        "/login",
        async (page) => {
          await page.getByLabel("Email").fill(maker.email);
          await page.getByLabel("Password").fill(PASSWORD);
        },
        (page) => page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }),
      );
      await page.waitForURL((u) => u.pathname === "/", { waitUntil: "commit", timeout: 30_000 });
      await page
        .getByRole("button", { name: `Account menu for ${maker.username}` })
        .first()
        .waitFor({ timeout: 30_000 });
      // The page's post (before hydration) or the scripts' sign-in call (after): never both, nor
      // either twice. That one arrived is shown by the account menu above; as in notSentTwice, the
      // count is an upper bound, since Chromium does not always report a post made while loading.
      const signIns = posts.filter((r) => ["/login", "/login.data", "/api/auth/sign-in/email"].includes(new URL(r.url()).pathname));
      expect(signIns.length, signIns.map((r) => r.url()).join(", ")).toBeLessThanOrEqual(1);
      await context.close();
    }, 90_000);
  }
  it("a server's page: Deploy, then Stop Server, pressed at once deploy it and stop it", async () => {
    const running = async (page: Page, panel: Locator) => {
      for (let i = 0; i < 60; i++) {
        const status = panel.getByTestId("deployment-status");
        await status.waitFor({ timeout: 30_000 });
        if ((await status.textContent()) === "Running") return;
        await page.waitForTimeout(2000);
        await page.reload({ waitUntil: "commit" });
      }
      throw new Error("the deployment never ran");
    };
    const { page, posts } = await slowPage(maker.context);
    await open(page, "/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await pressNow(page, panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }));
    await running(page, panel);
    notSentTwice(posts, "/server/everything");
    await page.close();

    // Stop asks first: before the scripts, in place (its <summary>); after, as a dialog.
    const again = await slowPage(maker.context);
    await open(again.page, "/server/everything");
    const here = again.page.getByRole("region", { name: "Deployment" });
    await pressNow(
      again.page,
      here.locator("summary", { hasText: DEPLOY_TEXT.stop }).or(here.getByRole("button", { name: DEPLOY_TEXT.stop })),
    );
    const confirm = here
      .getByRole("group", { name: DEPLOY_TEXT.stopTitle("everything") })
      .or(again.page.getByRole("alertdialog"))
      .getByRole("button", { name: DEPLOY_TEXT.stop, exact: true });
    await pressNow(again.page, confirm);
    // A stop waits for the server to end; with the page's CPU slowed eightfold on a busy machine the
    // panel can take over a minute to follow it (a CI run timed out at 60 s once).
    await here.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor({ timeout: 120_000 });
    notSentTwice(again.posts, "/server/everything");
    await again.page.close();
  }, 240_000);
});
