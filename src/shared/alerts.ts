import { z } from "zod";

// Advanced monitoring (Pro; docs/observability.md#alerts): alerts by e-mail when a deployment
// crash-loops, fails to start, fails or slows past the owner's thresholds, or changes its tool
// definitions, and a request log kept longer.

export const ALERT_KINDS = ["crash_loop", "start_failed", "error_rate", "latency", "definitions", "test"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_KIND_LABEL: Record<AlertKind, string> = {
  crash_loop: "Crash looping",
  start_failed: "Failed to start",
  error_rate: "Error rate",
  latency: "Slow answers",
  definitions: "Definitions changed",
  test: "Test alert",
};

export const ALERT_EMAIL_LABEL = {
  pending: "E-mail pending",
  sent: "E-mailed",
  failed: "E-mail failed",
  off: "Not e-mailed (e-mail off)",
  throttled: "Not e-mailed (too many this hour)",
} as const;

export const ALERTS_TEXT = {
  title: "Monitoring & alerts",
  intro: "An e-mail when this deployment crash-loops, fails to start, changes its tool definitions, or crosses a threshold you set.",
  proOnly: "Alerts and a longer request log are part of the Pro plan.",
  proAdds: (freeDays: number, proDays: number) => [
    "E-mail alerts when a deployment crash-loops or fails to start",
    "Alerts when its error rate or p95 latency crosses your threshold",
    "Alerts when its tool definitions change",
    `Request log kept ${proDays} days instead of ${freeDays}`,
  ],
  upgrade: "Upgrade to Pro",
  retention: (days: number) =>
    days > 0 ? `Request log kept ${days} day${days === 1 ? "" : "s"}.` : "The request log is off on this server.",
  emailLabel: "E-mail me when an alert opens",
  errorRateLabel: "Error rate threshold (%)",
  errorRateHint: "Share of requests in the last 5 minutes that failed; empty: no alert.",
  p95Label: "p95 latency threshold (ms)",
  p95Hint: "Over the last 5 minutes; empty: no alert.",
  minRequests: (n: number) => `Thresholds are checked once at least ${n} requests came in the last 5 minutes.`,
  save: "Save alert settings",
  saving: "Saving…",
  saved: "Alert settings saved.",
  sendTest: "Send a test alert",
  sendingTest: "Sending…",
  testSent: (email: string) => `A test alert was sent to ${email}.`,
  testFailed: "The test alert could not be sent: the e-mail server did not accept it.",
  testTooSoon: "A test alert was sent less than a minute ago. Try again in a moment.",
  list: "Recent alerts",
  none: "No alerts yet.",
  open: "Open",
  resolved: (when: string) => `Resolved ${when}`,
  loadFailed: "Could not load the alerts.",
  // What an alert says (its e-mail and the list).
  crashLoop: (detail: string) => `It keeps crashing and is no longer restarted: ${detail}`,
  startFailed: (detail: string) => `It failed to start: ${detail}`,
  errorRate: (pct: number, n: number, threshold: number) =>
    `${pct}% of the last 5 minutes' ${n} requests failed (your threshold: ${threshold}%).`,
  latency: (ms: number, n: number, threshold: number) =>
    `Its p95 latency over the last 5 minutes' ${n} requests was ${ms} ms (your threshold: ${threshold} ms).`,
  definitions: (names: string[], more: number) =>
    `Tool definitions changed and wait for your review: ${names.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`,
  test: "This is a test alert: alerts for this deployment reach you.",
  subject: (site: string, server: string, kind: AlertKind) => `[${site}] ${server}: ${ALERT_KIND_LABEL[kind]}`,
  heading: (server: string, kind: AlertKind) => `${server}: ${ALERT_KIND_LABEL[kind]}`,
  throttled: "This deployment's alerts have sent their e-mails for this hour. Try again later.",
} as const;

/** Thresholds from a form or JSON: a number in range, or null (off). */
const threshold = (max: number, message: string) =>
  z.preprocess(
    (v) => (v === "" || v === undefined ? null : typeof v === "string" ? Number(v.trim()) : v),
    z.number({ error: message }).int(message).min(1, message).max(max, message).nullable(),
  );

/** PUT /api/deployments/{id}/alerts: the owner's choices. */
export const alertSettingsInput = z.object({
  email: z.boolean(),
  error_rate_pct: threshold(100, "The error rate threshold must be a whole number from 1 to 100, or empty"),
  p95_ms: threshold(600_000, "The latency threshold must be a whole number of milliseconds from 1 to 600000, or empty"),
});
export type AlertSettingsInput = z.infer<typeof alertSettingsInput>;

export const alertSettingsView = z.object({
  email: z.boolean(),
  error_rate_pct: z.number().int().nullable(),
  p95_ms: z.number().int().nullable(),
});
export type AlertSettingsView = z.infer<typeof alertSettingsView>;

export const alertView = z.object({
  id: z.number().int(),
  kind: z.enum(ALERT_KINDS),
  message: z.string(),
  opened_at: z.string(),
  resolved_at: z.string().nullable(),
  email: z.enum(["pending", "sent", "failed", "off", "throttled"]),
});
export type AlertView = z.infer<typeof alertView>;

/** GET /api/deployments/{id}/alerts */
export const alertsPage = z.object({
  /** the owner's plan: alerts are Pro's; a Free owner sees what they would add */
  plan: z.enum(["free", "pro"]),
  retention_days: z.number().int(),
  free_retention_days: z.number().int(),
  pro_retention_days: z.number().int(),
  /** requests a window needs before its thresholds are checked */
  min_requests: z.number().int(),
  settings: alertSettingsView,
  alerts: z.array(alertView),
});
export type AlertsPage = z.infer<typeof alertsPage>;
