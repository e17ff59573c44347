import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AUTH_TEXT, FORGOT_TEXT, PROFILE_TEXT } from "~/shared/auth.js";
import { waitForMail } from "../support/smtp-sink.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { logIn, registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("accounts in Chromium", () => {
  it("register -> e-mail over SMTP -> confirm -> log in -> edit profile -> log out", async () => {
    const { page, context } = await newPage(browser);
    const email = `grace-${Date.now()}@example.com`;
    const started = Date.now();

    await page.goto("/register");
    await page.getByRole("heading", { name: "Join Switchboard" }).waitFor();
    expect(await page.getByText(AUTH_TEXT.passwordHint).isVisible()).toBe(true);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByText(AUTH_TEXT.passwordTooShort).waitFor();
    await page.getByLabel("Password").fill("grace-password-1");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    expect(await page.getByText(AUTH_TEXT.checkEmailText).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: AUTH_TEXT.returnToLogin }).getAttribute("href")).toBe("/login");

    // Logging in before confirming shows AUTH_TEXT.emailNotConfirmed.
    await logIn(page, email, "grace-password-1");
    await page.getByText(AUTH_TEXT.emailNotConfirmed).waitFor();

    const mail = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
    expect(mail.subject).toBe("Confirm your Switchboard account");
    const link = mail.text.match(/https?:\/\/\S+/)![0];
    await page.goto(link);
    await page.getByRole("heading", { name: "Email confirmed" }).waitFor();

    await logIn(page, email, "wrong-password-x");
    await page.getByText(AUTH_TEXT.invalidCredentials).waitFor();
    await logIn(page, email, "grace-password-1");
    await page.getByRole("button", { name: AUTH_TEXT.loggingIn }).waitFor();
    await page.waitForURL((u) => u.pathname === "/");

    // Header: Add Server and the user menu with the initial.
    await page.getByRole("link", { name: "Add Server" }).first().waitFor();
    const username = email.split("@")[0]!;
    const trigger = page.getByRole("button", { name: `Account menu for ${username}` });
    expect((await trigger.textContent())?.trim()).toBe("g");
    await trigger.click();
    await page.getByText(AUTH_TEXT.signedInAs).waitFor();
    await page.getByRole("menuitem", { name: "My deployments" }).waitFor();
    // Only admins have the admin page in their menu.
    expect(await page.getByRole("menuitem", { name: "Admin" }).count()).toBe(0);
    await page.getByRole("menuitem", { name: AUTH_TEXT.yourProfile }).click();
    await page.waitForURL((u) => u.pathname === "/profile");

    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.noChanges).waitFor();
    await page.getByLabel("New Password", { exact: true }).fill("grace-password-2");
    await page.getByLabel("Confirm New Password").fill("grace-password-2");
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.currentRequired).waitFor();
    await page.getByLabel("Current Password").fill("grace-password-1");
    await page.getByLabel("Confirm New Password").fill("grace-password-3");
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.mismatch).waitFor();
    await page.getByLabel("Confirm New Password").fill("grace-password-2");
    await page.getByLabel("Username").fill("amazing-grace");
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.updated).waitFor();
    expect(await page.getByLabel("Current Password").inputValue()).toBe("");
    expect(await page.getByLabel("New Password", { exact: true }).inputValue()).toBe("");

    await page.getByRole("button", { name: "Account menu for amazing-grace" }).click();
    await page.getByRole("menuitem", { name: AUTH_TEXT.signOut }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await page.getByRole("link", { name: "Workflow Builder" }).first().waitFor();
    expect(await page.getByRole("link", { name: "Add Server" }).count()).toBe(0);
    await page.goto("/profile");
    await page.waitForURL((u) => u.pathname === "/login");

    await logIn(page, email, "grace-password-2");
    await page.waitForURL((u) => u.pathname === "/");
    expect(problemsOf(page).filter((p) => !p.includes("status of 40"))).toEqual([]);
    await context.close();
  });

  it("resets a forgotten password with the e-mailed link", async () => {
    const { page, context } = await newPage(browser);
    const email = `reset-${Date.now()}@example.com`;
    const started = Date.now();
    await page.goto("/register");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("first-password");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    const confirm = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
    await page.goto(confirm.text.match(/https?:\/\/\S+/)![0]);

    await page.goto("/login");
    await page.getByRole("link", { name: AUTH_TEXT.forgotPassword }).click();
    await page.waitForURL((u) => u.pathname === "/forgot-password");
    // The address changes before a slow machine has drawn the new page (the login form also has an Email field).
    await page.getByRole("heading", { name: FORGOT_TEXT.title }).waitFor();
    const asked = Date.now();
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByText(`If an account exists for ${email}`).waitFor();
    const mail = await waitForMail(inject("mailDir"), email, { after: asked - 1000 });
    expect(mail.subject).toBe("Reset your Switchboard password");
    await page.goto(mail.text.match(/https?:\/\/\S+/)![0]);
    await page.getByLabel("New Password", { exact: true }).fill("second-password");
    await page.getByLabel("Confirm New Password").fill("second-password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("Your password has been reset.").waitFor();

    await logIn(page, email, "second-password");
    await page.waitForURL((u) => u.pathname === "/");
    await context.close();
  });

  it("signs in with GitHub (the local stand-in) the first and the second time", async () => {
    for (let i = 0; i < 2; i++) {
      const { page, context } = await newPage(browser);
      await page.goto("/login");
      await page.getByRole("button", { name: AUTH_TEXT.continueWithGitHub }).click();
      await page.waitForURL((u) => u.pathname === "/" && u.port === new URL(inject("appUrl")).port);
      await page.getByRole("button", { name: "Account menu for octocat" }).waitFor();
      await context.close();
    }
  });

  it("deletes the account after the e-mail is typed in the confirmation dialog", async () => {
    const { page, context } = await newPage(browser);
    const email = `leaving-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(page, email, "leaving-password-1");
    await page.goto("/profile");
    const open = page.getByRole("button", { name: "Delete Account" });
    await open.click();
    const dialog = page.getByRole("alertdialog", { name: "Delete Account" });
    const confirm = dialog.getByRole("button", { name: "Permanently delete my account" });
    // The dialog moves focus a frame after it opens (and back once it closed): wait for it.
    await expect
      .poll(() => dialog.getByRole("button", { name: "Cancel" }).evaluate((b) => b === document.activeElement), { timeout: 5000 })
      .toBe(true);
    expect(await confirm.isDisabled()).toBe(true);
    // Escape keeps the account, and focus goes back to the button that opened the dialog.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => open.evaluate((b) => b === document.activeElement), { timeout: 5000 }).toBe(true);
    await open.click();
    await dialog.getByLabel(`Type ${email} to confirm.`).fill(email);
    await confirm.click();
    await page.waitForURL((u) => u.pathname === "/");
    await logIn(page, email, "leaving-password-1");
    await page.getByText(AUTH_TEXT.invalidCredentials).waitFor();
    expect(problemsOf(page).filter((p) => !p.includes("status of 40"))).toEqual([]);
    await context.close();
  });

  it("shows the login validation message and the timeout text", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/login");
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.getByText(AUTH_TEXT.bothRequired).waitFor();
    // A sign-in that never answers: the page gives up after 20 s with AUTH_TEXT.loginTimeout.
    await page.clock.install();
    await page.route("**/api/auth/sign-in/email", () => new Promise(() => {}));
    await page.getByLabel("Email").fill("slow@example.com");
    await page.getByLabel("Password").fill("whatever-123");
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.getByRole("button", { name: AUTH_TEXT.loggingIn }).waitFor();
    expect(await page.getByLabel("Email").isDisabled()).toBe(true);
    await page.clock.runFor(20_500);
    await page.getByText(AUTH_TEXT.loginTimeout).waitFor();
    await context.close();
  });
});
