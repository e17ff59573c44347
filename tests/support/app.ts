import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { loadConfig, type Config } from "../../src/server/config.js";
import { createApp } from "../../src/server/http/app.js";
import { createLogger } from "../../src/server/log.js";
import { projectRoot } from "../../src/server/paths.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export const ORIGIN = "http://localhost:3000";

let buildPromise: Promise<ServerBuild> | undefined;
function serverBuild(): Promise<ServerBuild> {
  // `npm test` builds before the integration step; pages need that build.
  buildPromise ??= import(pathToFileURL(path.join(projectRoot, "build/server/index.js")).href) as Promise<ServerBuild>;
  return buildPromise;
}

export interface TestApp {
  app: ReturnType<typeof createApp>;
  config: Config;
  db: TestDatabase;
  close(): Promise<void>;
}

export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: "test", PORT: "3000", DATABASE_URL: db.url, LOG_LEVEL: "silent", ...env });
  const log = createLogger({ level: "silent", pretty: false });
  const app = createApp({ config, database: db.database, log, pages: serverBuild });
  return { app, config, db, close: () => db.drop() };
}

export function postJson(app: TestApp["app"], url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(url, {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
