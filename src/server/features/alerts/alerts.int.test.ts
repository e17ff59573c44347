import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERTS_TEXT, type AlertsPage } from "~/shared/alerts.js";
import { DEPLOY_TEXT, type DeploymentView } from "~/shared/deployments.js";
import { becomePro, createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { newApiKey, sdkClient } from "~support/gateway.js";
import { mailsTo, startSmtpSink, waitForMail, type SmtpSink } from "~support/smtp-sink.js";
import { until } from "~support/wait.js";
import { createLogger } from "../../log.js";
import { proUserIds } from "../billing/plan.js";
import { RequestLogRetention } from "../request-log/retention.js";

// Pro's advanced monitoring (issue 37) against real parts: the fixture server deployed from a git
// repository, the gateway's request log, and alert e-mails received by a real SMTP server. The
// sweep is run by the test (ALERTS_SWEEP_MS is an hour here), as the cluster's claimed run would.

let t: TestApp;
let smtp: SmtpSink;
let repo: FixtureRepo;
let owner: Client & { id: string };
let other: Client & { id: string };
let key: string;
let d: DeploymentView;
const OWNER = "alert-owner@example.com";

const link = async (email: string) => /https?:\/\/\S+/.exec((await waitForMail(smtp.dir, email)).text)![0];
const alertsOf = async (c: Client = owner) => {
  const r = await c.get(`/api/deployments/${d.id}/alerts`);
  expect(r.status).toBe(200);
  return (await r.json()) as AlertsPage;
};
const sweep = () => t.services.alerts.sweep();
const mailSubjects = async () => (await mailsTo(smtp.dir, OWNER)).map((m) => m.subject).filter((s) => !s.startsWith("Confirm"));

beforeAll(async () => {
  smtp = await startSmtpSink(await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-alert-mail-")));
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SMTP_URL: smtp.url,
    ALERTS_SWEEP_MS: "3600000",
    ALERT_MIN_REQUESTS: "5",
    USAGE_FLUSH_MS: "50",
    RESTART_BACKOFF_MS: "200",
    CRASH_LOOP_AFTER: "3",
  });
  await t.listen();
  repo = await createFixtureRepo();
  owner = await signedInUser(t, OWNER, "password123", link);
  other = await signedInUser(t, "alert-other@example.com", "password123", link);
  key = await newApiKey(owner, "alerts");
  await registerOwnedServer(owner, "alert-owner/fixture", "Alerting Fixture");
  // FIXTURE_RUG_PULL: after its first restart the server changes its tool definitions.
  const r = await owner.post("/api/deploy/alert-owner/fixture", { repositoryUrl: repo.url, env: { FIXTURE_RUG_PULL: "1" } });
  expect(r.status, await r.clone().text()).toBe(202);
  d = await waitForStatus(owner, "alert-owner/fixture", "running", 60_000);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await repo?.cleanup();
});

describe("alerts on a Free plan", () => {
  it("shows what Pro adds, refuses the settings and the test alert, and never alerts", async () => {
    const page = await alertsOf();
    expect(page).toMatchObject({ plan: "free", retention_days: 7, free_retention_days: 7, pro_retention_days: 30, alerts: [] });
    const put = await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: 10, p95_ms: null });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { error: string }).error).toBe(ALERTS_TEXT.proOnly);
    expect((await owner.post(`/api/deployments/${d.id}/alerts/test`)).status).toBe(403);

    // Its definitions change (the restart after a crash): a Pro owner would be told; a Free one is not.
    const c = await sdkClient(d.url, key);
    await c.callTool({ name: "crash", arguments: {} }).catch(() => undefined);
    await c.close().catch(() => undefined);
    await until(
      () => waitForStatus(owner, "alert-owner/fixture", "running"),
      (x) => x.restarts >= 1,
      30_000,
    );
    await until(
      async () => (await (await owner.get(`/api/deployments/${d.id}/definitions`)).json()) as { changes: unknown[] },
      (v) => v.changes.length > 0,
      20_000,
    );
    expect(await sweep()).toEqual({ opened: 0, resolved: 0 });
    expect((await alertsOf()).alerts).toEqual([]);
    expect(await mailSubjects()).toEqual([]);

    // The page says so, without JavaScript.
    const html = await (await owner.get("/server/alert-owner/fixture")).text();
    expect(html).toContain(ALERTS_TEXT.title.replace("&", "&amp;"));
    expect(html).toContain(ALERTS_TEXT.proOnly);
    expect(html).toContain("Request log kept 30 days instead of 7");
    expect(html).toContain('href="/subscription"');
  }, 90_000);
});

describe("alerts on Pro", () => {
  it("a definition change opens one alert and one e-mail, however often the sweep runs", async () => {
    await becomePro(owner);
    expect((await alertsOf()).plan).toBe("pro");
    expect(await sweep()).toMatchObject({ opened: 1 });
    expect(await sweep()).toEqual({ opened: 0, resolved: 0 });
    const [a] = (await alertsOf()).alerts;
    expect(a).toMatchObject({ kind: "definitions", resolved_at: null, email: "sent" });
    expect(a!.message).toContain("send_secrets");
    const mail = await waitForMail(smtp.dir, OWNER);
    expect(mail.subject).toBe("[Switchboard] Alerting Fixture: Definitions changed");
    expect(mail.text).toContain("send_secrets");
    expect(mail.text).toContain(`${t.config.PUBLIC_URL}/server/alert-owner/fixture`);
    expect(await mailSubjects()).toHaveLength(1);
  }, 60_000);

  it("thresholds are checked as the owner set them: a bad value is refused, a crossed one alerts, a raised one resolves", async () => {
    for (const bad of [{ error_rate_pct: 0 }, { error_rate_pct: 101 }, { p95_ms: 2.5 }, { p95_ms: "fast" }]) {
      const r = await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: null, p95_ms: null, ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    const saved = await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: 50, p95_ms: 200 });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as AlertsPage).settings).toEqual({ email: true, error_rate_pct: 50, p95_ms: 200 });

    // 3 answers, 2 slow ones and 4 calls of a tool that does not exist. With what the window holds
    // already (the client's initialize and listing, the crash), fewer than half failed; p95 is over 300 ms.
    const c = await sdkClient(d.url, key);
    const failures = async (n: number) => {
      for (let i = 0; i < n; i++) await c.callTool({ name: "no_such_tool", arguments: {} }).catch(() => undefined);
    };
    const logged = (n: number) =>
      until(
        async () =>
          ((await (await owner.get(`/api/deployments/${d.id}/requests?limit=100`)).json()) as { requests: { name: string | null }[] })
            .requests,
        (rows) => rows.filter((x) => x.name === "no_such_tool").length >= n,
        10_000,
      );
    for (let i = 0; i < 3; i++) await c.callTool({ name: "get_env", arguments: { name: "HOME" } });
    for (let i = 0; i < 2; i++) await c.callTool({ name: "sleep", arguments: { ms: 350 } });
    await failures(4);
    await logged(4);
    expect(await sweep()).toMatchObject({ opened: 1 });
    expect(
      (await alertsOf()).alerts
        .filter((a) => a.resolved_at === null)
        .map((a) => a.kind)
        .sort(),
    ).toEqual(["definitions", "latency"]);

    // Six more failures: now more than half.
    await failures(6);
    await c.close();
    await logged(10);
    expect(await sweep()).toMatchObject({ opened: 1 });
    const open = (await alertsOf()).alerts.filter((a) => a.resolved_at === null);
    const rate = /^(\d+)% of the last 5 minutes' (\d+) requests failed \(your threshold: 50%\)\.$/.exec(
      open.find((a) => a.kind === "error_rate")!.message,
    );
    expect(Number(rate![1])).toBeGreaterThanOrEqual(50);
    expect(Number(rate![2])).toBeGreaterThanOrEqual(15);
    expect(open.find((a) => a.kind === "latency")!.message).toMatch(/p95 latency .* was \d+ ms \(your threshold: 200 ms\)/);
    const subjects = await until(mailSubjects, (s) => s.length === 3, 10_000);
    expect(subjects.slice(1).sort()).toEqual([
      "[Switchboard] Alerting Fixture: Error rate",
      "[Switchboard] Alerting Fixture: Slow answers",
    ]);

    // Raised out of reach: both resolve, and nothing more is sent.
    expect((await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: 90, p95_ms: 60_000 })).status).toBe(200);
    expect(await sweep()).toEqual({ opened: 0, resolved: 2 });
    const after = (await alertsOf()).alerts;
    expect(after.filter((a) => a.resolved_at === null).map((a) => a.kind)).toEqual(["definitions"]);
    expect(await mailSubjects()).toHaveLength(3);

    // Back under the threshold within minutes (a flapping rate): the same alert reopens, no second e-mail.
    expect((await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: 50, p95_ms: 60_000 })).status).toBe(200);
    expect(await sweep()).toEqual({ opened: 1, resolved: 0 });
    const reopened = (await alertsOf()).alerts.filter((a) => a.kind === "error_rate");
    expect(reopened.map((a) => a.resolved_at)).toEqual([null]);
    expect(await mailSubjects()).toHaveLength(3);
    expect((await owner.put(`/api/deployments/${d.id}/alerts`, { email: true, error_rate_pct: 90, p95_ms: 60_000 })).status).toBe(200);
    expect(await sweep()).toEqual({ opened: 0, resolved: 1 });
  }, 60_000);

  it("a test alert reaches the owner's inbox, once a minute at most", async () => {
    // Five at once (a double click, a script): one is sent.
    const before = (await mailSubjects()).length;
    const tries = await Promise.all(Array.from({ length: 5 }, () => owner.post(`/api/deployments/${d.id}/alerts/test`)));
    expect(tries.map((r) => r.status).sort()).toEqual([200, 429, 429, 429, 429]);
    expect(await tries.find((r) => r.status === 200)!.json()).toEqual({ message: ALERTS_TEXT.testSent(OWNER) });
    await until(mailSubjects, (s) => s.includes("[Switchboard] Alerting Fixture: Test alert"), 10_000);
    expect(await mailSubjects()).toHaveLength(before + 1);
    const again = await owner.post(`/api/deployments/${d.id}/alerts/test`);
    expect(again.status).toBe(429);
    expect(((await again.json()) as { error: string }).error).toBe(ALERTS_TEXT.testTooSoon);
    expect((await alertsOf()).alerts[0]).toMatchObject({ kind: "test", email: "sent" });
  }, 30_000);

  it("another user sees none of it and changes none of it", async () => {
    expect((await other.get(`/api/deployments/${d.id}/alerts`)).status).toBe(404);
    const put = await other.put(`/api/deployments/${d.id}/alerts`, { email: false, error_rate_pct: null, p95_ms: null });
    expect(put.status).toBe(404);
    expect(((await put.json()) as { error: string }).error).toBe(DEPLOY_TEXT.notFound);
    expect((await other.post(`/api/deployments/${d.id}/alerts/test`)).status).toBe(404);
    expect((await alertsOf()).settings.error_rate_pct).toBe(90);
  });

  it("a crash loop alerts by e-mail; a start that fails alerts too, listed only once e-mail is off", async () => {
    const before = (await mailSubjects()).length;
    const crashing = await owner.put(`/api/deployments/${d.id}/env`, { env: { FIXTURE_RUG_PULL: "1", FIXTURE_CRASH_AFTER_MS: "300" } });
    expect(crashing.status, await crashing.clone().text()).toBe(202);
    await waitForStatus(owner, "alert-owner/fixture", "crash_looping", 60_000);
    expect(await sweep()).toMatchObject({ opened: 1 });
    expect((await alertsOf()).alerts.find((a) => a.kind === "crash_loop")).toMatchObject({ resolved_at: null, email: "sent" });
    const subjects = await until(mailSubjects, (s) => s.length === before + 1, 10_000);
    expect(subjects.at(-1)).toBe("[Switchboard] Alerting Fixture: Crash looping");

    // Without JavaScript: the page's form turns e-mail off.
    const origin = new URL(t.config.PUBLIC_URL).origin;
    const form = await t.app.request(`${origin}/server/alert-owner/fixture`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie: owner.jar.header() },
      body: new URLSearchParams({ intent: "alert-settings", deployment: d.id, error_rate_pct: "90", p95_ms: "" }).toString(),
      redirect: "manual",
    });
    expect(form.status).toBe(303);
    expect((await alertsOf()).settings).toEqual({ email: false, error_rate_pct: 90, p95_ms: null });

    const keys = await owner.put(`/api/deployments/${d.id}/env`, { env: { FIXTURE_EXIT_ON_START: "4" } });
    expect(keys.status, await keys.clone().text()).toBe(202);
    await waitForStatus(owner, "alert-owner/fixture", "failed", 60_000);
    expect(await sweep()).toEqual({ opened: 1, resolved: 1 });
    const page = await alertsOf();
    const failed = page.alerts.find((a) => a.kind === "start_failed")!;
    expect(failed).toMatchObject({ resolved_at: null, email: "off" });
    expect(failed.message).toContain("Exited with code 4");
    expect(page.alerts.find((a) => a.kind === "crash_loop")!.resolved_at).not.toBeNull();
    expect(await mailSubjects()).toHaveLength(before + 1);

    // The page lists them for its owner, as it renders without JavaScript.
    const html = await (await owner.get("/server/alert-owner/fixture")).text();
    expect(html).toContain("Failed to start");
    expect(html).toContain("Not e-mailed (e-mail off)");
    expect(html).toContain(ALERTS_TEXT.sendTest);
  }, 120_000);
});

describe("request log retention by plan", () => {
  it("keeps a Pro owner's rows 30 days and a Free owner's 7", async () => {
    const db = t.db.database.db;
    const freeDeployment = randomUUID();
    await db.execute(sql`
      insert into deployments (id, user_id, server_kind, server_ref, source, secrets, proxy_id, status)
      values (${freeDeployment}, ${other.id}, 'owned', 'alert-other/x', '{"kind":"npm"}', '', ${randomUUID()}, 'stopped')`);
    const row = (id: string, days: number) =>
      sql`(${id}, now() - make_interval(days => ${days}), 'tools/call', 1, 'ok', 0, 0, 'streamable')`;
    await db.execute(sql`
      insert into request_log (deployment_id, at, method, duration_ms, outcome, bytes_in, bytes_out, transport)
      values ${sql.join([row(d.id, 10), row(d.id, 40), row(freeDeployment, 3), row(freeDeployment, 10)], sql`, `)}`);
    const retention = new RequestLogRetention({
      db,
      log: createLogger({ level: "silent", pretty: false }),
      retentionDays: 7,
      proRetentionDays: 30,
      proUsers: () => proUserIds(db),
      maxRows: 10_000,
    });
    await retention.sweep();
    const left = await db.execute<{ deployment_id: string; days: number }>(sql`
      select deployment_id, round(extract(epoch from now() - at) / 86400)::int as days from request_log
      where deployment_id in (${d.id}, ${freeDeployment}) and at < now() - interval '1 day' order by 1, 2`);
    expect(left.rows.map((r) => [r.deployment_id === d.id ? "pro" : "free", r.days]).sort()).toEqual([
      ["free", 3],
      ["pro", 10],
    ]);
    expect((await alertsOf()).retention_days).toBe(30);
  });
});
