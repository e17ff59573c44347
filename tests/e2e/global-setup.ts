// Starts the built app as a real process on a fresh database for the browser tests.
import type { TestProject } from "vitest/node";
import { startAppProcess } from "../support/process.js";
import dbSetup from "../support/db-global-setup.js";
import { createDatabaseFrom } from "../support/db.js";

declare module "vitest" {
  export interface ProvidedContext {
    appUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const teardownDb = await dbSetup(project);
  const db = await createDatabaseFrom(project.getProvidedContext().pgAdminUrl, project.getProvidedContext().pgTemplate, project.getProvidedContext().pgPrefix);
  const app = await startAppProcess({ DATABASE_URL: db.url, NODE_ENV: "test" });
  // Same-origin requests from the browser must match PUBLIC_URL (derived from PORT: localhost).
  project.provide("appUrl", app.url.replace("127.0.0.1", "localhost"));
  return async () => {
    await app.stop("SIGTERM");
    await db.drop();
    await teardownDb();
  };
}
