import type { Logger } from "../../../log.js";
import type { UidPool } from "../sandbox/identity.js";
import type { Limits, Sandbox } from "../sandbox/index.js";

/**
 * What every source's shared cache is given (npm packages, PyPI environments, container images):
 * where the cache lives, the installer's sandbox and uids, and the limits of its steps. Each
 * source's own options extend it.
 */
export interface CacheOptions {
  /** the shared caches' folder (under DATA_DIR) */
  packagesDir: string;
  sandbox: Sandbox;
  uids: UidPool;
  /** DEPLOY_INSTALL_TIMEOUT_MS: the most one install step may take */
  timeoutMs: number;
  limits: Limits;
  /** DEPLOY_DISK_MB: also the most one cached package, environment or image may take */
  diskMb: number;
  log: Logger;
}
