// Starts the built app as a real process on a fresh database for the browser tests, with a real
// SMTP server receiving its mail and a local OAuth server standing in for GitHub.
import os from "node:os";
import path from "node:path";
import fs from "node:fs/promises";
import { createWriteStream } from "node:fs";
import type { TestProject } from "vitest/node";
import dbSetup from "../support/db-global-setup.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createDatabaseFrom } from "../support/db.js";
import { removeDataDir } from "../support/deployments.js";
import { startFakeGitHub } from "../support/github-oauth.js";
import { freePort, startAppProcess } from "../support/process.js";
import { startSmtpSink } from "../support/smtp-sink.js";
import { startTestDns } from "../support/dns-server.js";
import { E2E_REMOTE_HOST } from "../support/remote-upstreams.js";

declare module "vitest" {
  export interface ProvidedContext {
    appUrl: string;
    mailDir: string;
    /** the app's log (info level: one line per request), for tests that check what it writes */
    appLog: string;
    /** the app's database, for tests that put catalogue entries in place as an import would */
    appDatabaseUrl: string;
    /** the TXT records the app's DNS server answers (custom domains): a JSON file of name -> values */
    dnsRecords: string;
  }
}

export default async function setup(project: TestProject) {
  const teardownDb = await dbSetup(project);
  const ctx = project.getProvidedContext();
  const db = await createDatabaseFrom(ctx.pgAdminUrl, ctx.pgTemplate, ctx.pgPrefix);
  const mailDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-mail-"));
  const smtp = await startSmtpSink(mailDir);
  const gh = await startFakeGitHub();
  // Custom domains' TXT records come from this machine, never from the world's DNS.
  const dnsRecords = path.join(mailDir, "dns-records.json");
  const dns = await startTestDns(dnsRecords);
  const port = await freePort();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-e2e-data-"));
  const app = await startAppProcess({
    PORT: String(port),
    DATABASE_URL: db.url,
    NODE_ENV: "test",
    SMTP_URL: smtp.url,
    PUBLIC_URL: `http://localhost:${port}`,
    GITHUB_CLIENT_ID: gh.clientId,
    GITHUB_CLIENT_SECRET: gh.clientSecret,
    GITHUB_OAUTH_URL: gh.url,
    GITHUB_API_URL: gh.url,
    AUTH_SECRET: "e2e-secret-e2e-secret-e2e-secret-e2e",
    ADMIN_EMAILS:
      "admin-e2e@example.com,ops-e2e@example.com,a11y-e2e@example.com,nojs-admin@example.com,works-e2e@example.com,early-e2e@example.com,confirm-admin@example.com",
    LOG_LEVEL: "info",
    // Every test signs up from this one address: the sign-up and sign-in limits are integration tests' business.
    AUTH_RATE_LIMIT: "off",
    DATA_DIR: dataDir,
    PACKAGES_DIR: TEST_PACKAGES_DIR,
    // The playground's hostile-output test deploys the fixture server from a local git repository.
    GIT_ALLOW_FILE: "on",
    // The connections test's remote server: a test host the operator lets connections (and hosted code) reach.
    SANDBOX_EGRESS_ALLOW: E2E_REMOTE_HOST,
    CUSTOM_DOMAIN_RESOLVERS: dns.address,
  });
  const appLog = path.join(mailDir, "app.log");
  const log = createWriteStream(appLog);
  app.child.stdout!.pipe(log);
  app.child.stderr!.pipe(log);
  project.provide("appUrl", `http://localhost:${port}`);
  project.provide("mailDir", mailDir);
  project.provide("appLog", appLog);
  project.provide("appDatabaseUrl", db.url);
  project.provide("dnsRecords", dnsRecords);
  return async () => {
    await app.stop("SIGTERM");
    await gh.close();
    await dns.close();
    await smtp.close();
    await fs.rm(mailDir, { recursive: true, force: true });
    await removeDataDir(dataDir);
    await db.drop();
    await teardownDb();
  };
}
