import type { CatalogChecks } from "./features/deployments/checks/checks.js";
import type { SeedChecks } from "./features/deployments/checks/seed-checks.js";
import type { RegistrySync } from "./features/registry-api/sync.js";
import type { Alerts } from "./features/alerts/service.js";
import type { AuditRetention } from "./features/audit/retention.js";
import type { Billing } from "./features/billing/service.js";
import type { Domains } from "./features/domains/service.js";
import type { Observability } from "./features/observability/index.js";
import type { RequestLogRetention } from "./features/request-log/retention.js";
import type { RequestLogWriter } from "./features/request-log/writer.js";

// What runs in the background (platform.ts): nothing starts before the platform listens (no
// constructor starts a timer), and close stops it all once no gateway answers any more.

export interface JobsWiring {
  observability: Pick<Observability, "listen" | "close">;
  /** the deployment lifecycle (features/deployments/lifecycle.ts) */
  deployments: { start(): void; recover(): Promise<number>; shutdown(): Promise<void> };
  billing: Pick<Billing, "start" | "close">;
  /** Pro's alerts (web processes; one at a time sweeps) */
  alerts: Pick<Alerts, "start" | "close">;
  /** custom domains' TXT record checks (web processes; one at a time checks) */
  domains: Pick<Domains, "start" | "close">;
  /** the audit log's retention (web processes; one at a time trims) */
  auditRetention: Pick<AuditRetention, "start" | "close">;
  requestLog: Pick<RequestLogWriter, "start" | "close">;
  requestLogRetention: Pick<RequestLogRetention, "start" | "close">;
  checks: Pick<CatalogChecks, "startSweeping" | "close">;
  /** the demo catalogue's checks after start-up (web processes; one check at a time across the cluster) */
  seedChecks: Pick<SeedChecks, "start" | "close">;
  /** keeps the catalogue in step with REGISTRY_SYNC_URL (web processes; one at a time runs it) */
  registrySync: Pick<RegistrySync, "start" | "close">;
  /** the process has the web role: it runs the billing sweep */
  web: boolean;
}

export interface Jobs {
  /** Starts it all; resolves with how many deployments this process's runner started again. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export function backgroundJobs(j: JobsWiring): Jobs {
  return {
    async start() {
      await j.observability.listen();
      // Before the runner's recovery, which may wait a lease out: requests are served meanwhile.
      j.requestLog.start();
      j.checks.startSweeping();
      // Without a runner of its own, the process follows the live runners' sandbox.
      j.deployments.start();
      const recovered = await j.deployments.recover();
      if (j.web) j.billing.start();
      if (j.web) j.registrySync.start();
      if (j.web) j.seedChecks.start();
      if (j.web) j.alerts.start();
      if (j.web) j.domains.start();
      if (j.web) j.auditRetention.start();
      j.requestLogRetention.start();
      return recovered;
    },
    async stop() {
      // The last spans go out once no gateway answers any more.
      await j.observability.close();
      j.requestLogRetention.close();
      await j.requestLog.close();
      j.billing.close();
      j.alerts.close();
      j.domains.close();
      j.auditRetention.close();
      j.checks.close();
      j.seedChecks.close();
      j.registrySync.close();
      // Alone: children stop gracefully and their rows stay so the next start brings them back.
      // In a cluster: each deployment is handed over to another runner first.
      await j.deployments.shutdown();
    },
  };
}
