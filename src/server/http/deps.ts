import type { AuditRetention } from "../features/audit/retention.js";
import type { ServerBuild } from "react-router";
import type { Bus } from "../cluster/bus.js";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import type { Alerts } from "../features/alerts/service.js";
import type { Auth } from "../features/auth/auth.js";
import type { Domains } from "../features/domains/service.js";
import type { Billing } from "../features/billing/service.js";
import type { CatalogChecks } from "../features/deployments/checks/checks.js";
import type { RegistrySync } from "../features/registry-api/sync.js";
import type { DeploymentLifecycle } from "../features/deployments/lifecycle.js";
import type { SecretBox } from "../features/deployments/secret-box.js";
import type { Mailer } from "../features/mail/mailer.js";
import type { KeyRevocations } from "../features/api-keys/revocations.js";
import type { KeyServers } from "../features/api-keys/api-keys.js";
import type { Logger } from "../log.js";
import type { RateLimiter } from "./rate-limit.js";

// What the HTTP layer is built from (assembled by createPlatform in src/server/platform.ts).

export interface AppDeps {
  config: Config;
  database: Database;
  log: Logger;
  /** secret for signing sessions and tokens (AUTH_SECRET or one generated into DATA_DIR) */
  secret: string;
  mailer?: Mailer;
  /** The React Router server build; a function so dev mode can reload it on every request. */
  pages?: () => Promise<ServerBuild>;
  dev?: boolean;
  /** the one owner of deployments: start, stop, limits, and the runner's sandbox */
  deployments: DeploymentLifecycle;
  /** seals the keys owners deploy with */
  box: SecretBox;
  /** the process's one bus (cluster/bus.ts): facts every process must learn at once */
  bus: Bus;
  /** the platform's own checks of catalogue entries ('Check now') */
  checks?: CatalogChecks;
  /** the catalogue kept in step with a registry (REGISTRY_SYNC_URL) */
  registrySync?: RegistrySync;
  /** the servers an API key may name (catalog's and publishers' repos, for api-keys) */
  keyServers: KeyServers;
}

export interface Services {
  auth: Auth;
  mailer: Mailer;
  /** counted in the database: the same limits through every web process */
  limiter: RateLimiter;
  billing: Billing;
  /** API-key revocation events: the publisher and profile routes report them, the gateway listens */
  revocations: KeyRevocations;
  /** Pro's alerts: the routes, and the sweep web processes run */
  alerts: Alerts;
  /** custom domains: the routes, the gateway's Host lookups, and the TXT record checks web processes run */
  domains: Domains;
  /** keeps the audit log to its retention (web processes; one at a time trims) */
  auditRetention: AuditRetention;
}
