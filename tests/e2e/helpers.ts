import { BILLING_TEXT } from "~/shared/billing.js";
import type { Page } from "playwright-core";
import { inject } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { waitForMail } from "../support/smtp-sink.js";

export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
}

/** Registers through the page, follows the e-mailed link, and logs in. */
export async function registerConfirmAndLogIn(page: Page, email: string, password: string): Promise<void> {
  const started = Date.now();
  await page.goto("/register");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
  await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
  const mail = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
  await page.goto(mail.text.match(/https?:\/\/\S+/)![0]);
  await page.getByRole("heading", { name: "Email confirmed" }).waitFor();
  await logIn(page, email, password);
  await page.waitForURL((u) => u.pathname === "/");
}

/**
 * As the signed-in user of `page`: registers the owned server `<username>/<name>` and, given a
 * repository URL (a test's file:// fixture), deploys it from there (with the keys `env`). Returns its qualified name.
 */
export async function registerOwnedServer(
  page: Page,
  name: string,
  repositoryUrl?: string,
  env: Record<string, string> = {},
): Promise<string> {
  return page.evaluate(
    async ({ name, repositoryUrl, env }) => {
      const me = (await (await fetch("/api/auth/me")).json()) as { user: { username: string } };
      const qn = `${me.user.username}/${name}`;
      const json = { "content-type": "application/json" };
      const server = {
        qualifiedName: qn,
        displayName: name,
        description: `The ${name} test server`,
        repositoryUrl: `https://github.com/acme/${name}`,
        keywords: "test",
        connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
      };
      const r = await fetch("/api/servers", { method: "POST", headers: json, body: JSON.stringify(server) });
      if (r.status !== 201) throw new Error(`register: ${r.status} ${await r.text()}`);
      if (repositoryUrl) {
        const d = await fetch(`/api/deploy/${qn}`, { method: "POST", headers: json, body: JSON.stringify({ repositoryUrl, env }) });
        if (d.status !== 202) throw new Error(`deploy: ${d.status} ${await d.text()}`);
      }
      return qn;
    },
    { name, repositoryUrl, env },
  );
}

/**
 * On /servers/apikeys: generates a key named `name` with the scopes ticked besides the default
 * `mcp`, and returns it as the once-only panel shows it.
 */
export async function generateKey(page: Page, name: string, extraScopes: string[] = []): Promise<string> {
  await page.getByLabel("New key name").fill(name);
  for (const scope of extraScopes) await page.getByRole("checkbox", { name: new RegExp(`^${scope}`) }).check();
  await page.getByRole("button", { name: "Generate API Key" }).click();
  await page.getByText(API_KEY_TEXT.generated).waitFor();
  await page.getByText(API_KEY_TEXT.onceWarning).waitFor();
  const key = (await page.getByTestId("new-key-value").textContent())!.trim();
  if (!/^sb_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`not a key: ${key}`);
  return key;
}

/** Subscribes the signed-in person to Pro through the test-mode checkout, as they would click it. */
export async function subscribeToPro(page: Page): Promise<void> {
  await page.goto("/subscription");
  await page
    .getByRole("article", { name: "Pro", exact: true })
    .getByRole("button", { name: BILLING_TEXT.subscribeTo("Pro") })
    .click();
  await page.getByRole("button", { name: BILLING_TEXT.confirmPayment }).click();
  await page.getByText(BILLING_TEXT.checkoutSuccess).waitFor();
}

/** Confirms the question a destructive action asks first (with scripts): the dialog's button named `confirm`. */
export async function confirmDialog(page: Page, confirm: string): Promise<void> {
  const dialog = page.getByRole("alertdialog");
  await dialog.getByRole("button", { name: confirm, exact: true }).click();
  await dialog.waitFor({ state: "detached" });
}
