// 'Works here' in Chromium (issue 36): an admin checks two entries from the admin page; the
// visitor sees each result with its date on the server's page, the badge on its card, and the
// directory's 'Works here' chip keeps only the one that works.
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { CHECK_TEXT, WORKS_TEXT } from "~/shared/catalog.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

const env = browserWithFixtureRepo();

describe("works here", () => {
  it("an admin's checks show on the server pages, as a badge and through the directory's filter", async () => {
    const admin = await newPage(env.browser);
    await registerConfirmAndLogIn(admin.page, "works-e2e@example.com", "works-password-1");
    const tag = `wh${Date.now().toString(36)}`;
    const entries = { runs: `${tag}-runs`, keyed: `${tag}-keyed` };
    // Two approved entries from the fixture repository (a file:// URL only an import can name):
    // one that runs, one that stops at once when its key is set (a placeholder stops it).
    const pool = new pg.Pool({ connectionString: inject("appDatabaseUrl"), max: 1 });
    try {
      for (const [id, name, keys] of [
        [entries.runs, "Runs Here", null],
        [entries.keyed, "Wants Keys", [{ key: "Exit", env_var: "FIXTURE_EXIT_ON_START", description: "Stops it" }]],
      ] as const)
        await pool.query(
          `insert into mcp_servers (id, name, description, category, type, source, tags, repository_url, required_keys, is_approved)
           values ($1, $2, 'Checked in the browser', 'Featured', 'Community', 'imported', array[$3], $4, $5::jsonb, true)`,
          [id, name, tag, env.repo.url, keys && JSON.stringify(keys)],
        );
    } finally {
      await pool.end();
    }

    await admin.page.goto("/admin/mcp-servers");
    await admin.page.getByRole("tab", { name: /Approved Servers/ }).click();
    for (const id of Object.values(entries)) {
      const card = admin.page.locator(`[data-server="${id}"]`);
      await card.getByRole("button", { name: CHECK_TEXT.checkNow }).click();
      // Posted: the button is busy ('Processing...', then 'Checking…' while it runs).
      await card.getByRole("button", { name: CHECK_TEXT.checkNow }).waitFor({ state: "detached", timeout: 30_000 });
    }
    const visitor = await newPage(env.browser);
    // Each check ends with an outcome (a loaded machine takes a while to clone, install and start).
    for (const id of Object.values(entries))
      await expect
        .poll(
          async () =>
            ((await (await visitor.context.request.get(`/api/mcp-servers/${id}`)).json()) as { check_outcome?: string }).check_outcome,
          { timeout: 180_000, interval: 500 },
        )
        .toBeDefined();

    const problems = problemsOf(visitor.page);
    await visitor.page.goto(`/server/${entries.runs}`);
    const checked = visitor.page.getByRole("region", { name: WORKS_TEXT.title });
    await checked.getByText(/^Works here: it started in Switchboard's sandbox and listed \d+ tools\.$/).waitFor({ timeout: 60_000 });
    await checked.getByText(/^Checked /).waitFor();
    await visitor.page.screenshot({ path: "test-results/works-here-page.png" });
    await visitor.page.goto(`/server/${entries.keyed}`);
    await visitor.page.getByRole("region", { name: WORKS_TEXT.title }).getByText(WORKS_TEXT.needsKeys).waitFor({ timeout: 60_000 });

    await visitor.page.goto(`/?q=${tag}`);
    await visitor.page.getByRole("link", { name: /Wants Keys/ }).waitFor();
    const runsCard = visitor.page.getByRole("link", { name: /Runs Here/ });
    await runsCard.getByText(WORKS_TEXT.badge).waitFor();
    await visitor.page.getByRole("link", { name: WORKS_TEXT.filter, exact: true }).click();
    await visitor.page.waitForURL((u) => u.searchParams.get("works") === "1" && u.searchParams.get("q") === tag);
    await visitor.page.getByRole("link", { name: /Wants Keys/ }).waitFor({ state: "detached" });
    await runsCard.waitFor();
    await visitor.page.screenshot({ path: "test-results/works-here-directory.png", fullPage: true });
    expect(problems).toEqual([]);
    await admin.context.close();
    await visitor.context.close();
  }, 360_000);
});
