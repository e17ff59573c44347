import path from "node:path";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { projectRoot } from "../../paths.js";
import { loadOrCreateSecret } from "../../secrets.js";
import { SecretBox } from "./crypto.js";
import { Installer } from "./installer.js";
import { detectSandbox } from "./sandbox.js";
import { Supervisor } from "./supervisor.js";

/** The hosting runtime: how children are sandboxed, where packages live, and who supervises them. */
export interface Runtime {
  box: SecretBox;
  supervisor: Supervisor;
}

export async function createRuntime(config: Config, db: Db, log: Logger): Promise<Runtime> {
  const dataDir = path.resolve(projectRoot, config.DATA_DIR);
  const sandbox = await detectSandbox(config, log);
  if (!config.SECRETS_KEY && config.NODE_ENV === "production") log.warn("SECRETS_KEY is not set: using the one generated in DATA_DIR");
  const box = new SecretBox(await loadOrCreateSecret(dataDir, "secrets-key", config.SECRETS_KEY));
  const installer = new Installer({
    packagesDir: path.resolve(projectRoot, config.PACKAGES_DIR ?? path.join(config.DATA_DIR, "packages")),
    deploymentsDir: path.resolve(projectRoot, config.DEPLOYMENTS_DIR ?? path.join(config.DATA_DIR, "deployments")),
    sandbox,
    allowFileGit: config.GIT_ALLOW_FILE === "on",
    timeoutMs: config.DEPLOY_INSTALL_TIMEOUT_MS,
    memoryMb: config.DEPLOY_MEMORY_MB,
    log,
  });
  const supervisor = new Supervisor({
    db,
    log,
    box,
    installer,
    sandbox,
    memoryMb: config.DEPLOY_MEMORY_MB,
    startTimeoutMs: config.DEPLOY_START_TIMEOUT_MS,
    backoffMs: config.RESTART_BACKOFF_MS,
    backoffMaxMs: config.RESTART_BACKOFF_MAX_MS,
    healthyResetMs: config.HEALTHY_RESET_MS,
    crashLoopAfter: config.CRASH_LOOP_AFTER,
  });
  return { box, supervisor };
}
