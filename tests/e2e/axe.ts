import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

// axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules, run in the page as it is (after hydration and
// its data). The page's context must bypass the CSP: axe is injected as a script of the test's.

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];

/** The violations on the page now, one line each: rule, impact, and up to five elements with why. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[]; failureSummary?: string }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return r.violations.map(
      (v) =>
        `${v.id} (${v.impact}) x${v.nodes.length}: ${v.nodes
          .slice(0, 5)
          .map((n) => `${n.target.join(" ")} -- ${(n.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 240)}`)
          .join(" | ")}`,
    );
  }, TAGS);
}

/** Loaded, hydrated, and done loading what it loads in the browser (no 'Loading'/'Connecting' left). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true", undefined, { timeout: 15_000 });
  await page
    .waitForFunction(() => !/Loading|Connecting…|Connecting\.\.\./.test(document.body.innerText), undefined, { timeout: 15_000 })
    .catch(() => undefined);
}
