import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { loadConfig, type Config } from "~/server/config.js";
import { connect } from "~/server/db/client.js";
import type { Hono } from "hono";
import type { SecretBox } from "~/server/features/deployments/secret-box.js";
import type { Gateway } from "~/server/features/gateway/index.js";
import type { Runtime } from "~/server/features/runtime/index.js";
import { createPlatform, type Platform } from "~/server/platform.js";
import { createLogger } from "~/server/log.js";
import { projectRoot } from "~/server/paths.js";
import { CookieJar } from "./cookies.js";
import { createTestDatabase, type TestDatabase } from "./db.js";
import { removeDataDir } from "./data-dir.js";

export const ORIGIN = "http://localhost:3000";
export const TEST_PACKAGES_DIR = path.join(os.tmpdir(), "switchboard-test-packages");

let buildPromise: Promise<ServerBuild> | undefined;
function serverBuild(): Promise<ServerBuild> {
  // `npm test` builds before the integration step; pages need that build.
  buildPromise ??= import(pathToFileURL(path.join(projectRoot, "build/server/index.js")).href) as Promise<ServerBuild>;
  return buildPromise;
}

/** A port for an app that must know its own public URL before it listens (see ports.ts). */
export { freePort } from "./ports.js";

export interface TestApp {
  app: Hono;
  gateway: Gateway;
  /** Serves the app and the gateway on a real port (the PORT it was configured with); returns its base URL. */
  listen(): Promise<string>;
  config: Config;
  db: TestDatabase;
  services: Platform["services"];
  bus: Platform["bus"];
  runtime: Runtime;
  box: SecretBox;
  secret: string;
  close(): Promise<void>;
}

/**
 * The platform as `npm start` assembles it, on a database of its own and a data directory of its own.
 * With `sameDatabaseAs`, a second process of one cluster instead: the other app's database through
 * a connection pool of its own (so caches are not shared), left for that app to drop.
 */
export async function createTestApp(env: Record<string, string> = {}, opts: { sameDatabaseAs?: TestApp } = {}): Promise<TestApp> {
  const other = opts.sameDatabaseAs?.db;
  const db: TestDatabase = other ? sharedDatabase(other.url) : await createTestDatabase();
  // Each app gets its own data directory (secrets key, deployments); npm packages are cached for the whole run.
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-"));
  const config = loadConfig({
    NODE_ENV: "test",
    PORT: "3000",
    DATABASE_URL: db.url,
    LOG_LEVEL: "silent",
    AUTH_RATE_LIMIT: "off",
    DATA_DIR: dataDir,
    PACKAGES_DIR: TEST_PACKAGES_DIR,
    // No background checks of a demo catalogue unless a test asks for them (seed-checks.int.test.ts).
    SEED_CHECKS: "off",
    ...env,
  });
  const log = createLogger({ level: "silent", pretty: false });
  const platform = await createPlatform({ config, log, database: db.database, pages: serverBuild });
  const server = http.createServer();
  return {
    app: platform.app,
    gateway: platform.gateway,
    listen: async () => {
      await platform.listen(server, config.PORT, "127.0.0.1");
      return `http://127.0.0.1:${config.PORT}`;
    },
    config,
    db,
    services: platform.services,
    bus: platform.bus,
    runtime: platform.runtime!,
    box: platform.box,
    secret: platform.secret,
    close: async () => {
      server.closeAllConnections();
      await platform.close();
      await db.drop();
      await removeDataDir(dataDir);
    },
  };
}

function sharedDatabase(url: string): TestDatabase {
  const database = connect(url, { max: 5 });
  return { url, database, drop: () => database.close() };
}

export function postJson(app: TestApp["app"], url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(url, {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A browser-like client: keeps cookies, sends the app's Origin on writes. */
export function client(app: TestApp["app"], origin = ORIGIN) {
  const jar = new CookieJar();
  const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { cookie: jar.header(), ...headers };
    if (method !== "GET") h.origin ??= origin;
    if (body !== undefined) h["content-type"] = "application/json";
    const full = url.startsWith("http") ? url : `${origin}${url}`;
    const res = await app.request(full, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    jar.store(res);
    return res;
  };
  return {
    jar,
    get: (url: string, headers?: Record<string, string>) => send("GET", url, undefined, headers),
    post: (url: string, body: unknown = {}, headers?: Record<string, string>) => send("POST", url, body, headers),
    put: (url: string, body: unknown, headers?: Record<string, string>) => send("PUT", url, body, headers),
    del: (url: string, body?: unknown, headers?: Record<string, string>) => send("DELETE", url, body, headers),
  };
}

export type Client = ReturnType<typeof client>;

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

export async function outbox(app: TestApp["app"]): Promise<OutboxMail[]> {
  return (await (await app.request("/dev/outbox.json")).json()) as OutboxMail[];
}

export function linkIn(mail: OutboxMail | undefined): string {
  const m = mail?.text.match(/https?:\/\/\S+/);
  if (!m) throw new Error(`no link in mail: ${mail?.text}`);
  return m[0];
}

/**
 * Registers and confirms an account; returns a signed-in client. `confirmation` reads the link the
 * confirmation e-mail carries where the app sends real mail (SMTP_URL); otherwise the dev outbox has it.
 */
export async function signedInUser(
  t: TestApp,
  email: string,
  password = "password123",
  confirmation?: (email: string) => Promise<string>,
): Promise<Client & { id: string }> {
  const c = client(t.app, new URL(t.config.PUBLIC_URL).origin);
  const r = await c.post("/api/auth/sign-up/email", { email, password, name: email.split("@")[0] });
  if (r.status !== 200) throw new Error(`sign-up failed: ${r.status} ${await r.text()}`);
  const link = new URL(confirmation ? await confirmation(email) : linkIn((await outbox(t.app)).find((m) => m.to === email)));
  await c.get(`${link.pathname}${link.search}`);
  const s = await c.post("/api/auth/sign-in/email", { email, password });
  if (s.status !== 200) throw new Error(`sign-in failed: ${s.status} ${await s.text()}`);
  const session = (await (await c.get("/api/auth/get-session")).json()) as { user: { id: string } };
  return Object.assign(c, { id: session.user.id });
}

/** Subscribes the user to Pro through the built-in test checkout (no Stripe keys). */
export async function becomePro(c: Client): Promise<void> {
  const r = await c.post("/api/subscriptions/checkout", { plan: "pro", period: "monthly" });
  const { url } = (await r.json()) as { url: string };
  const confirmed = await c.post(`/api/subscriptions/test-checkout/${url.split("/").pop()!}/confirm`);
  if (confirmed.status >= 400) throw new Error(`test checkout: ${confirmed.status} ${await confirmed.text()}`);
}
