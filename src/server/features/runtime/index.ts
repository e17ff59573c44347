import fs from "node:fs/promises";
import path from "node:path";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { projectRoot } from "../../paths.js";
import { loadOrCreateSecret } from "../../secrets.js";
import { SecretBox } from "./crypto.js";
import { Installer } from "./installer.js";
import { createHosting } from "./sandbox/detect.js";
import { Supervisor } from "./supervisor.js";

/** The hosting runtime: how children are sandboxed, where packages live, and who supervises them. */
export interface Runtime {
  box: SecretBox;
  installer: Installer;
  supervisor: Supervisor;
}

export async function createRuntime(config: Config, db: Db, log: Logger): Promise<Runtime> {
  const dataDir = path.resolve(projectRoot, config.DATA_DIR);
  const packagesDir = path.resolve(projectRoot, config.PACKAGES_DIR ?? path.join(config.DATA_DIR, "packages"));
  const deploymentsDir = path.resolve(projectRoot, config.DEPLOYMENTS_DIR ?? path.join(config.DATA_DIR, "deployments"));
  await fs.mkdir(dataDir, { recursive: true });
  const { sandbox, uids, volumes } = await createHosting(config, { data: dataDir, deployments: deploymentsDir, packages: packagesDir }, log);
  if (!config.SECRETS_KEY && config.NODE_ENV === "production") log.warn("SECRETS_KEY is not set: using the one generated in DATA_DIR");
  const box = new SecretBox(await loadOrCreateSecret(dataDir, "secrets-key", config.SECRETS_KEY));
  const limits = { memoryMb: config.DEPLOY_MEMORY_MB, maxProcesses: config.DEPLOY_MAX_PROCESSES, cpus: config.DEPLOY_CPUS };
  const installer = new Installer({ packagesDir, sandbox, volumes, uids, allowFileGit: config.GIT_ALLOW_FILE === "on", timeoutMs: config.DEPLOY_INSTALL_TIMEOUT_MS, limits, diskMb: config.DEPLOY_DISK_MB, log });
  const supervisor = new Supervisor({
    db,
    log,
    box,
    installer,
    sandbox,
    volumes,
    limits,
    diskMb: config.DEPLOY_DISK_MB,
    hostingPolicy: config.SANDBOX_INCOMPLETE,
    startTimeoutMs: config.DEPLOY_START_TIMEOUT_MS,
    backoffMs: config.RESTART_BACKOFF_MS,
    backoffMaxMs: config.RESTART_BACKOFF_MAX_MS,
    healthyResetMs: config.HEALTHY_RESET_MS,
    crashLoopAfter: config.CRASH_LOOP_AFTER,
  });
  return { box, installer, supervisor };
}
