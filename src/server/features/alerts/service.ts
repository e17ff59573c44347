import { ALERTS_TEXT, type AlertKind, type AlertSettingsInput, type AlertsPage, type AlertView } from "~/shared/alerts.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { claimRun } from "../../cluster/jobs.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import type { Mailer } from "../mail/mailer.js";
import { alertMail } from "../mail/templates.js";
import { ownedDeployment } from "../deployments/owner-actions.js";
import {
  deleteResolvedOlderThan,
  emailsLastHour,
  listAlerts,
  loadSettings,
  openAlert,
  openAlerts,
  pendingDefinitions,
  openTestAlert,
  resolveAlert,
  saveSettings,
  setEmailOutcome,
  watchedDeployments,
  windowFigures,
  type Watched,
} from "./repo.js";

// Advanced monitoring for Pro owners (docs/observability.md#alerts). Every web process ticks; once
// per ALERTS_SWEEP_MS only the one that claims the run (cluster/jobs.ts) looks at every Pro owner's
// deployments, opens an alert for each condition that holds and has none open (the unique index
// keeps that to one across processes), e-mails its owner, and resolves the alerts whose condition
// cleared. A Free owner's deployments are never looked at.

export const ALERTS_JOB = "deployment-alerts";
/** the window error rate and latency are read over (the texts say so) */
export const WINDOW_MINUTES = 5;
/** resolved alerts are listed this long */
const KEEP_DAYS = 30;
/** definition names an alert names before 'and N more' */
const NAMED = 5;

export interface AlertsDeps {
  db: Db;
  log: Logger;
  mailer: Mailer;
  config: Pick<
    Config,
    | "SITE_NAME"
    | "PUBLIC_URL"
    | "ALERTS_SWEEP_MS"
    | "ALERT_MIN_REQUESTS"
    | "ALERT_EMAILS_PER_HOUR"
    | "REQUEST_LOG_RETENTION_DAYS"
    | "REQUEST_LOG_RETENTION_DAYS_PRO"
  >;
  /** the users on Pro now (billing/plan.ts proUserIds) */
  proUsers(): Promise<string[]>;
  /** one user's plan now (billing/plan.ts planOf) */
  isPro(userId: string): Promise<boolean>;
}

const firstLine = (s: string | null, fallback: string) => (s ?? "").split("\n")[0]!.trim().slice(0, 300) || fallback;

export class Alerts {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<{ opened: number; resolved: number }> | undefined;

  constructor(private readonly d: AlertsDeps) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.d.config.ALERTS_SWEEP_MS).unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    try {
      if (!(await claimRun(this.d.db, ALERTS_JOB, this.d.config.ALERTS_SWEEP_MS))) return;
      await this.sweep();
    } catch (e) {
      this.d.log.error({ err: e }, "alerts sweep failed");
    }
  }

  /** One sweep now (one at a time in this process): how many alerts it opened and resolved. */
  sweep(): Promise<{ opened: number; resolved: number }> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<{ opened: number; resolved: number }> {
    const { db, config } = this.d;
    const watched = await watchedDeployments(db, await this.d.proUsers());
    const ids = watched.map((w) => w.id);
    const [figures, pending, open] = await Promise.all([
      windowFigures(db, ids, WINDOW_MINUTES),
      pendingDefinitions(db, ids),
      openAlerts(db, ids),
    ]);
    let opened = 0;
    let resolved = 0;
    for (const w of watched) {
      const want = new Map<AlertKind, string>();
      if (w.status === "crash_looping") want.set("crash_loop", ALERTS_TEXT.crashLoop(firstLine(w.statusDetail, "it exited")));
      if (w.status === "failed") want.set("start_failed", ALERTS_TEXT.startFailed(firstLine(w.statusDetail, "no reason given")));
      const f = figures.get(w.id);
      if (f && f.n >= config.ALERT_MIN_REQUESTS) {
        const pct = Math.round((f.errors * 100) / f.n);
        const { error_rate_pct: rate, p95_ms: p95 } = w.settings;
        if (rate !== null && (f.errors * 100) / f.n >= rate) want.set("error_rate", ALERTS_TEXT.errorRate(pct, f.n, rate));
        if (p95 !== null && f.p95Ms >= p95) want.set("latency", ALERTS_TEXT.latency(f.p95Ms, f.n, p95));
      }
      const names = pending.get(w.id);
      if (names?.length) want.set("definitions", ALERTS_TEXT.definitions(names.slice(0, NAMED), names.length - NAMED));
      for (const kind of ["crash_loop", "start_failed", "error_rate", "latency", "definitions"] as const) {
        const isOpen = open.has(`${w.id} ${kind}`);
        const message = want.get(kind);
        if (isOpen && message === undefined) {
          await resolveAlert(db, w.id, kind);
          resolved++;
        } else if (!isOpen && message !== undefined) {
          const opening = await openAlert(db, w.id, kind, message);
          if (opening === undefined) continue;
          opened++;
          if (!opening.reopened) await this.deliver(w, opening.id, kind, message);
        }
      }
    }
    await deleteResolvedOlderThan(db, KEEP_DAYS);
    return { opened, resolved };
  }

  /** E-mails an alert to its owner, unless they turned e-mail off or this deployment sent its hour's worth. */
  private async deliver(
    w: Pick<Watched, "id" | "name" | "ownerEmail" | "settings" | "serverKind" | "serverRef">,
    alertId: number,
    kind: AlertKind,
    message: string,
  ): Promise<AlertView["email"]> {
    const { db, config, log } = this.d;
    let outcome: AlertView["email"] = "sent";
    if (!w.settings.email) outcome = "off";
    // This alert is counted already (its e-mail is pending).
    else if ((await emailsLastHour(db, w.id)) > config.ALERT_EMAILS_PER_HOUR) outcome = "throttled";
    else {
      const url = `${config.PUBLIC_URL}${pageOf(w.serverKind, w.serverRef)}`;
      const subject = ALERTS_TEXT.subject(config.SITE_NAME, w.name, kind);
      try {
        await this.d.mailer.send(
          alertMail(config.SITE_NAME, w.ownerEmail, { subject, heading: ALERTS_TEXT.heading(w.name, kind), message, url }),
        );
      } catch (e) {
        log.warn({ err: e, deployment: w.id, kind }, "an alert e-mail could not be sent");
        outcome = "failed";
      }
    }
    await setEmailOutcome(db, alertId, outcome);
    return outcome;
  }

  /** GET /api/deployments/{id}/alerts: the owner's settings and recent alerts, and what their plan keeps. */
  async page(viewer: Viewer, deploymentId: string): Promise<AlertsPage> {
    // The deployment's owner's plan: an organisation's own for its deployments.
    const { userId: ownerId } = await this.own(viewer, deploymentId);
    const { config } = this.d;
    const pro = await this.d.isPro(ownerId);
    const free = config.REQUEST_LOG_RETENTION_DAYS;
    const proDays = free === 0 ? 0 : Math.max(free, config.REQUEST_LOG_RETENTION_DAYS_PRO);
    const [settings, alerts] = await Promise.all([loadSettings(this.d.db, deploymentId), listAlerts(this.d.db, deploymentId)]);
    return {
      plan: pro ? "pro" : "free",
      retention_days: pro ? proDays : free,
      free_retention_days: free,
      pro_retention_days: proDays,
      min_requests: config.ALERT_MIN_REQUESTS,
      settings,
      alerts,
    };
  }

  /** PUT /api/deployments/{id}/alerts (Pro). */
  async saveSettings(viewer: Viewer, deploymentId: string, input: AlertSettingsInput): Promise<AlertsPage> {
    const { userId: ownerId } = await this.own(viewer, deploymentId);
    await this.requirePro(ownerId);
    await saveSettings(this.d.db, deploymentId, input);
    return this.page(viewer, deploymentId);
  }

  /** POST /api/deployments/{id}/alerts/test (Pro): an alert sent now, whatever the e-mail setting, at most once a minute. */
  async sendTest(viewer: Viewer, deploymentId: string): Promise<{ message: string }> {
    const owner = await this.own(viewer, deploymentId);
    await this.requirePro(owner.userId);
    const [w] = (await watchedDeployments(this.d.db, [owner.userId])).filter((x) => x.id === deploymentId);
    if (!w) throw new AppError("not_found", DEPLOY_TEXT.notFound);
    const id = await openTestAlert(this.d.db, deploymentId, ALERTS_TEXT.test, this.d.config.ALERT_EMAILS_PER_HOUR);
    if (id === "too_soon") throw new AppError("rate_limited", ALERTS_TEXT.testTooSoon);
    if (id === "throttled") throw new AppError("rate_limited", ALERTS_TEXT.throttled);
    const outcome = await this.deliver({ ...w, settings: { ...w.settings, email: true } }, id, "test", ALERTS_TEXT.test);
    if (outcome === "throttled") throw new AppError("rate_limited", ALERTS_TEXT.throttled);
    if (outcome !== "sent") throw new AppError("unavailable", ALERTS_TEXT.testFailed);
    return { message: ALERTS_TEXT.testSent(w.ownerEmail) };
  }

  private async own(viewer: Viewer, deploymentId: string): Promise<{ userId: string }> {
    return ownedDeployment(this.d.db, viewer, deploymentId);
  }

  /** The deployment's owner (a person, or an organisation's account) is on Pro. */
  private async requirePro(ownerId: string): Promise<void> {
    if (!(await this.d.isPro(ownerId))) throw new AppError("forbidden", ALERTS_TEXT.proOnly);
  }
}

/** The page a deployment is seen on: its server's, or its toolset's. */
function pageOf(kind: string, ref: string): string {
  const path = ref.split("/").map(encodeURIComponent).join("/");
  return kind === "toolset" ? `/toolsets/${path}` : `/server/${path}`;
}
