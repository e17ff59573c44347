import { randomBytes, randomUUID } from "node:crypto";
import { CHECK_TEXT } from "~/shared/catalog.js";
import type { Db } from "../../../db/client.js";
import { AppError } from "../../../errors.js";
import type { Logger } from "../../../log.js";
import { findServer } from "../../catalog/repo.js";
import { sourceFrom } from "../../runtime/command.js";
import { deployabilityOf } from "../deployability.js";
import type { DeploymentLifecycle } from "../lifecycle.js";
import {
  checkState,
  PLATFORM_USER_ID,
  platformDeployments,
  saveCapabilities,
  setCheckStatus,
  staleRemoteChecks,
} from "../definitions/listings.js";
import type { ProbeResult } from "./remote-check.js";
import { findDeployment, reserveCheck } from "../repo.js";
import type { SecretBox } from "../secret-box.js";

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
  /** a remote entry's liveness check (remote-check.ts); without it remote entries cannot be checked */
  probeRemote?: (url: string, transport: "streamable-http" | "sse") => Promise<ProbeResult>;
}

export class CatalogChecks {
  private readonly watched = new Map<string, NodeJS.Timeout>();
  /** Remote entries this process is probing now. */
  private readonly probing = new Set<string>();
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
    // A server its publisher hosts: is its endpoint alive, and what does it list (remote-check.ts)?
    if (can.kind === "remote" && this.d.probeRemote) {
      if ((await checkState(this.d.db, entry.id)).status === "checking") throw new AppError("conflict", CHECK_TEXT.already);
      await setCheckStatus(this.d.db, entry.id, "checking");
      // In the background, as a hosted check: the admin page shows it under way and then its outcome.
      void this.checkRemote(entry.id, can.url, can.transport).catch((e: unknown) =>
        this.d.log.warn({ err: e, entry: entry.id }, "remote check failed"),
      );
      return;
    }
    if (can.kind !== "deployable") {
      const why = can.kind === "remote" ? CHECK_TEXT.remote : can.reason;
      await setCheckStatus(this.d.db, entry.id, "failed", why, "cannot-run");
      throw new AppError("validation_failed", CHECK_TEXT.cannotRun(why));
    }
    const source = sourceFrom(entry.npxCommand, entry.repositoryUrl, { allowFileGit: this.d.config.GIT_ALLOW_FILE === "on" });
    if (!source) {
      await setCheckStatus(this.d.db, entry.id, "failed", CHECK_TEXT.noSource, "cannot-run");
      throw new AppError("validation_failed", CHECK_TEXT.cannotRun(CHECK_TEXT.noSource));
    }
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
      const detail = failed ? (row.statusDetail ?? CHECK_TEXT.failed) : CHECK_TEXT.timedOut;
      await setCheckStatus(this.d.db, entryId, "failed", detail, await this.outcomeOfFailure(entryId, failed, detail));
      await this.d.lifecycle.stop(deploymentId);
      return true;
    }
    return false;
  }

  /**
   * A check that did not list: an entry that asks for keys and stopped with placeholders for them
   * most likely needs real ones (said so, not 'fails'); one that asks for none, or that installed
   * wrong or ran out of time, fails here.
   */
  private async outcomeOfFailure(entryId: string, exited: boolean, detail: string): Promise<"needs-keys" | "fails"> {
    if (!exited || /install|build|not found|no matching version|could not be (fetched|downloaded)/i.test(detail)) return "fails";
    const entry = await findServer(this.d.db, entryId);
    return entry?.requiredKeys?.length ? "needs-keys" : "fails";
  }

  /** A remote entry's liveness: initialize and tools/list through the guarded outbound client. */
  private async checkRemote(entryId: string, url: string, transport: "streamable-http" | "sse"): Promise<void> {
    this.probing.add(entryId);
    try {
      const r = await this.d.probeRemote!(url, transport);
      if (r.ok) await saveCapabilities(this.d.db, { kind: "catalog", ref: entryId }, r.listing);
      else await setCheckStatus(this.d.db, entryId, "failed", r.why, r.needsCredentials ? "needs-keys" : "fails");
    } finally {
      this.probing.delete(entryId);
    }
  }

  /** Clears checks that overran (their process may have gone) and this process's watchers' leftovers. */
  async sweep(): Promise<void> {
    const old = (await platformDeployments(this.d.db)).filter(
      (r) => !this.watched.has(r.id) && Date.now() - r.createdAt.getTime() > this.timeoutMs,
    );
    for (const r of old) {
      if ((await checkState(this.d.db, r.serverRef)).status === "checking")
        await setCheckStatus(this.d.db, r.serverRef, "failed", CHECK_TEXT.timedOut, "fails");
      await this.d.lifecycle.stop(r.id);
    }
    if (old.length) this.d.log.info({ checks: old.map((r) => r.id) }, "cleared catalogue checks that overran");
    // A remote check has no deployment: one still 'checking' long after any probe would have ended lost its process.
    const remote = (await staleRemoteChecks(this.d.db, new Date(Date.now() - this.timeoutMs))).filter((id) => !this.probing.has(id));
    for (const id of remote) await setCheckStatus(this.d.db, id, "failed", CHECK_TEXT.timedOut, "fails");
    if (remote.length) this.d.log.info({ entries: remote }, "cleared remote checks whose process went away");
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const t of this.watched.values()) clearTimeout(t);
    this.watched.clear();
  }
}
