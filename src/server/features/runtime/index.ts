import fs from "node:fs/promises";
import path from "node:path";
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";
import { projectRoot } from "../../paths.js";
import { Installer } from "./sources/installer.js";
import { LocalRunner } from "./local-runner.js";
import { PythonRuntime } from "./sources/python/python.js";
import { parseAllowList } from "./sandbox/cidr.js";
import { createHosting } from "./sandbox/detect.js";
import { MAX_LINE } from "./process/stdout-lines.js";

export type { DeploymentSpec, Listing, McpChannel, Runner, RunnerEvent, RunnerEvents, Source } from "./runner.js";
export { LocalRunner };

/** Hosting on this machine: the sandbox it found, where packages live, and the runner of deployments. */
export interface Runtime {
  installer: Installer;
  runner: LocalRunner;
}

export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  const dataDir = path.resolve(projectRoot, config.DATA_DIR);
  const packagesDir = path.resolve(projectRoot, config.PACKAGES_DIR ?? path.join(config.DATA_DIR, "packages"));
  const deploymentsDir = path.resolve(projectRoot, config.DEPLOYMENTS_DIR ?? path.join(config.DATA_DIR, "deployments"));
  await fs.mkdir(dataDir, { recursive: true });
  const { sandbox, uids, volumes } = await createHosting(
    config,
    { data: dataDir, deployments: deploymentsDir, packages: packagesDir },
    log,
  );
  const limits = { memoryMb: config.DEPLOY_MEMORY_MB, maxProcesses: config.DEPLOY_MAX_PROCESSES, cpus: config.DEPLOY_CPUS };
  const common = { packagesDir, sandbox, uids, timeoutMs: config.DEPLOY_INSTALL_TIMEOUT_MS, limits, diskMb: config.DEPLOY_DISK_MB, log };
  const python = new PythonRuntime({ ...common, indexUrl: config.PYPI_INDEX_URL, python: config.PYTHON });
  const installer = new Installer({
    ...common,
    volumes,
    allowFileGit: config.GIT_ALLOW_FILE === "on",
    python,
    insecureRegistries: config.IMAGE_INSECURE_REGISTRIES,
    registryAuthFile: config.IMAGE_REGISTRY_AUTH_FILE || null,
    maxFiles: config.IMAGE_MAX_FILES,
  });
  const runner = new LocalRunner({
    log,
    installer,
    sandbox,
    volumes,
    limits,
    diskMb: config.DEPLOY_DISK_MB,
    flow: {
      stdinBytes: config.DEPLOY_STDIN_BUFFER_BYTES,
      messagesPerSecond: config.DEPLOY_MESSAGES_PER_SECOND,
      bytesPerSecond: config.DEPLOY_OUTPUT_BYTES_PER_SECOND,
      floodStopMs: config.DEPLOY_FLOOD_STOP_MS,
    },
    startTimeoutMs: config.DEPLOY_START_TIMEOUT_MS,
    backoffMs: config.RESTART_BACKOFF_MS,
    backoffMaxMs: config.RESTART_BACKOFF_MAX_MS,
    healthyResetMs: config.HEALTHY_RESET_MS,
    crashLoopAfter: config.CRASH_LOOP_AFTER,
    // A connection reaches what hosted code may: public https, and the operator's own exceptions.
    remote: {
      allow: parseAllowList(config.SANDBOX_EGRESS_ALLOW),
      maxBodyBytes: MAX_LINE,
      headersTimeoutMs: config.CONNECTION_TIMEOUT_MS,
      answerTimeoutMs: config.CONNECTION_ANSWER_TIMEOUT_MS,
      bytesPerSecond: config.DEPLOY_OUTPUT_BYTES_PER_SECOND,
    },
    toolset: {
      checkMs: config.TOOLSET_CHECK_MS,
      requestTimeoutMs: config.CONNECTION_TIMEOUT_MS,
      callTimeoutMs: config.GATEWAY_REQUEST_TIMEOUT_MS,
    },
  });
  return { installer, runner };
}
