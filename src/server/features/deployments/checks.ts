import { randomBytes, randomUUID } from "node:crypto";
import { CHECK_TEXT } from "~/shared/catalog.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { findServer } from "../catalog/repo.js";
import { sourceFrom } from "../runtime/command.js";
import { deployabilityOf } from "./deployability.js";
import type { DeploymentLifecycle } from "./lifecycle.js";
import { checkState, PLATFORM_USER_ID, platformDeployments, setCheckStatus } from "./listings.js";
import { findDeployment, reserveCheck } from "./repo.js";
import type { SecretBox } from "./secret-box.js";

// 'Check now' (docs/product.md#trusted-listings): the platform runs a catalogue entry itself, under
// its own account and with placeholder keys, to learn what it lists. That listing is the entry's
// candidate; an admin approves it before anyone else sees it. The check's deployment goes as soon
// as it listed (or failed, or ran out of time).

/** What a check gives each required key: no real secret is ever needed to list tools. */
export const PLACEHOLDER = "switchboard-check-placeholder";
const POLL_MS = 1000;

export interface CheckDeps {
  db: Db;
  config: { GIT_ALLOW_FILE: "on" | "off"; DEPLOY_INSTALL_TIMEOUT_MS: number; DEPLOY_START_TIMEOUT_MS: number };
  box: SecretBox;
  lifecycle: Pick<DeploymentLifecycle, "launch" | "stop">;
  log: Logger;
}

export class CatalogChecks {
  private readonly watched = new Map<string, NodeJS.Timeout>();
  private sweepTimer?: NodeJS.Timeout;

  constructor(private readonly d: CheckDeps) {}

  /** A check whose process went away before it ended: any process clears it once it overran (every minute, from when the platform listens). */
  startSweeping(): void {
    this.sweepTimer ??= setInterval(
      () => void this.sweep().catch((e: unknown) => this.d.log.warn({ err: e }, "check sweep failed")),
      60_000,
    ).unref();
  }

  private get timeoutMs(): number {
    return this.d.config.DEPLOY_INSTALL_TIMEOUT_MS + this.d.config.DEPLOY_START_TIMEOUT_MS + 30_000;
  }

  /** Starts a check of the entry; its listing arrives as the entry's candidate (listings.ts). */
  async start(entryId: string): Promise<void> {
    const entry = await findServer(this.d.db, entryId);
    if (!entry) throw new AppError("not_found", "Server not found");
    const can = deployabilityOf(entry, { allowFileGit: this.d.config.GIT_ALLOW_FILE === "on" });
    if (can.kind !== "deployable")
      throw new AppError("validation_failed", CHECK_TEXT.cannotRun(can.kind === "remote" ? CHECK_TEXT.remote : can.reason));
    const source = sourceFrom(entry.npxCommand, entry.repositoryUrl, { allowFileGit: this.d.config.GIT_ALLOW_FILE === "on" });
    if (!source) throw new AppError("validation_failed", CHECK_TEXT.cannotRun(CHECK_TEXT.noSource));
    const env = Object.fromEntries((entry.requiredKeys ?? []).map((k) => [k.env_var, PLACEHOLDER]));
    const row = await reserveCheck(this.d.db, {
      id: randomUUID(),
      userId: PLATFORM_USER_ID,
      serverKind: "catalog",
      serverRef: entry.id,
      source,
      secrets: this.d.box.seal(env),
      proxyId: randomBytes(16).toString("hex"),
    });
    if (!row) throw new AppError("conflict", CHECK_TEXT.already);
    await setCheckStatus(this.d.db, entry.id, "checking");
    await this.d.lifecycle.launch(row);
    this.watch(row.id, entry.id, Date.now());
  }

  /** Until it listed, failed or overran: then its deployment goes. */
  private watch(deploymentId: string, entryId: string, startedAt: number): void {
    const tick = async () => {
      const done = await this.step(deploymentId, entryId, startedAt).catch((e: unknown) => {
        this.d.log.warn({ err: e, deployment: deploymentId }, "check step failed");
        return false;
      });
      if (done) this.watched.delete(deploymentId);
      else this.watched.set(deploymentId, setTimeout(() => void tick(), POLL_MS).unref());
    };
    this.watched.set(deploymentId, setTimeout(() => void tick(), POLL_MS).unref());
  }

  private async step(deploymentId: string, entryId: string, startedAt: number): Promise<boolean> {
    const row = await findDeployment(this.d.db, deploymentId);
    if (!row) return true;
    const state = await checkState(this.d.db, entryId);
    // Listed: the runner saved it as the candidate and cleared the status.
    if (state.status !== "checking") {
      await this.d.lifecycle.stop(deploymentId);
      return true;
    }
    const failed = row.status === "failed" || row.status === "crashed" || row.status === "crash_looping";
    if (failed || Date.now() - startedAt > this.timeoutMs) {
      await setCheckStatus(this.d.db, entryId, "failed", failed ? (row.statusDetail ?? CHECK_TEXT.failed) : CHECK_TEXT.timedOut);
      await this.d.lifecycle.stop(deploymentId);
      return true;
    }
    return false;
  }

  /** Clears checks that overran (their process may have gone) and this process's watchers' leftovers. */
  async sweep(): Promise<void> {
    const old = (await platformDeployments(this.d.db)).filter(
      (r) => !this.watched.has(r.id) && Date.now() - r.createdAt.getTime() > this.timeoutMs,
    );
    for (const r of old) {
      if ((await checkState(this.d.db, r.serverRef)).status === "checking")
        await setCheckStatus(this.d.db, r.serverRef, "failed", CHECK_TEXT.timedOut);
      await this.d.lifecycle.stop(r.id);
    }
    if (old.length) this.d.log.info({ checks: old.map((r) => r.id) }, "cleared catalogue checks that overran");
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const t of this.watched.values()) clearTimeout(t);
    this.watched.clear();
  }
}
