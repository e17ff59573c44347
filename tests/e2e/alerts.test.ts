import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { ALERTS_TEXT } from "~/shared/alerts.js";
import { BILLING_TEXT } from "~/shared/billing.js";
import { waitForMail } from "../support/smtp-sink.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn, registerOwnedServer, subscribeToPro } from "./helpers.js";

// Monitoring & alerts on a deployment's page (issue 37, item 2), in Chromium: Free sees what Pro
// adds; after the test checkout, the owner sets a threshold and sends a test alert, which reaches
// the e2e SMTP server.

const env = browserWithFixtureRepo();

describe("alerts in Chromium", () => {
  it("Free is shown what Pro adds; on Pro the owner saves a threshold and a test alert reaches their inbox", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 1100 } });
    const problems = problemsOf(page);
    const email = `alerts-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(page, email, "alerts-password-1");
    const qn = await registerOwnedServer(page, "fixture", env.repo.url);
    await page.goto(`/server/${qn}`);
    await page.getByRole("region", { name: "Deployment" }).getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const card = page.getByTestId("alerts");
    await card.getByText(ALERTS_TEXT.proOnly).waitFor();
    await card.screenshot({ path: "test-results/alerts-card-free.png" });
    await card.getByRole("link", { name: ALERTS_TEXT.upgrade }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await page.getByRole("heading", { level: 1, name: BILLING_TEXT.title }).waitFor();

    await subscribeToPro(page);

    await page.goto(`/server/${qn}`);
    await card.getByText(ALERTS_TEXT.intro).waitFor();
    await card.getByText(ALERTS_TEXT.retention(30)).waitFor();
    const rate = card.getByLabel(ALERTS_TEXT.errorRateLabel);
    await rate.fill("250");
    await card.getByRole("button", { name: ALERTS_TEXT.save }).click();
    // The browser's own check (max 100) or the server's message: either way nothing is saved.
    await rate.fill("25");
    await card.getByRole("button", { name: ALERTS_TEXT.save }).click();
    await card.getByText(ALERTS_TEXT.saved).waitFor();

    const started = Date.now();
    await card.getByRole("button", { name: ALERTS_TEXT.sendTest }).click();
    await card.getByText(ALERTS_TEXT.testSent(email)).waitFor();
    await card.getByTestId("alert").getByText("Test alert", { exact: true }).waitFor();
    const mail = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
    expect(mail.subject).toMatch(/: Test alert$/);
    expect(mail.text).toContain(ALERTS_TEXT.test);

    // Kept after a reload, as the server stored it.
    await page.reload();
    expect(await card.getByLabel(ALERTS_TEXT.errorRateLabel).inputValue()).toBe("25");
    await card.screenshot({ path: "test-results/alerts-card.png" });
    expect(problems).toEqual([]);
  }, 240_000);
});
