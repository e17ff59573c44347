// npm run billing:reconcile - reads every Stripe subscription again from Stripe and repairs the
// database (missed or failed webhooks). Deployments over a lowered plan's limit are then stopped
// by the running app's periodic check.
import { loadConfig } from "../config.js";
import { Billing } from "../features/billing/service.js";
import { createLogger } from "../log.js";
import { withCliDatabase } from "./database.js";

async function main(): Promise<number> {
  const config = loadConfig();
  if (!config.STRIPE_SECRET_KEY) {
    console.error("STRIPE_SECRET_KEY is not set: the built-in test mode has nothing to reconcile.");
    return 2;
  }
  return withCliDatabase(async (database) => {
    const billing = new Billing({ db: database.db, config, log: createLogger({ level: "warn", pretty: false }) });
    try {
      const r = await billing.reconcile();
      console.log(
        `Checked ${r.checked} subscription${r.checked === 1 ? "" : "s"} with Stripe: ${r.changed} repaired, ${r.failed} could not be read.`,
      );
      return r.failed ? 1 : 0;
    } finally {
      billing.close();
    }
  });
}

// Stripe's client keeps connections alive: exit once the work is done.
process.exit(await main());
