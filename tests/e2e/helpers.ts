import type { Page } from "playwright-core";
import { inject } from "vitest";
import { AUTH_TEXT } from "../../src/shared/auth.js";
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
