import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { CHECK_TEXT } from "~/shared/catalog.js";
import { createLogger } from "../../../log.js";
import { CatalogChecks, type CheckDeps } from "./checks.js";
import { checkState, PLATFORM_USER_ID, setCheckStatus } from "../definitions/listings.js";
import { reserveCheck } from "../repo.js";

// A remote entry's check has no deployment to find when its process dies mid-probe: the sweep
// clears it once it overran, so 'Check now' works again; a check still within its time stays.

let t: TestDatabase;
let checks: CatalogChecks;

beforeAll(async () => {
  t = await createTestDatabase();
  for (const id of ["gone-probe", "fresh-probe", "hosted-check"])
    await t.database.db.execute(sql`
      insert into mcp_servers (id, name, description, category, type, source, is_approved, url)
      values (${id}, ${id}, 'Remote', 'Development Tools', 'Community', 'imported', true, 'https://mcp.example.test/mcp')`);
  const lifecycle: CheckDeps["lifecycle"] = {
    launch: () => Promise.reject(new Error("no launches here")),
    stop: () => Promise.resolve(),
  };
  const config = { GIT_ALLOW_FILE: "off" as const, DEPLOY_INSTALL_TIMEOUT_MS: 60_000, DEPLOY_START_TIMEOUT_MS: 60_000 };
  checks = new CatalogChecks({
    db: t.database.db,
    config,
    box: undefined as never,
    lifecycle,
    log: createLogger({ level: "silent", pretty: false }),
  });
});
afterAll(async () => {
  checks?.close();
  await t?.drop();
});

describe("sweeping checks whose process went away", () => {
  it("fails a remote check that overran without a deployment, and leaves one under way and a hosted one alone", async () => {
    const db = t.database.db;
    for (const id of ["gone-probe", "fresh-probe", "hosted-check"]) await setCheckStatus(db, id, "checking");
    await db.execute(
      sql`update catalog_listings set check_started_at = now() - interval '1 hour' where server_id in ('gone-probe', 'hosted-check')`,
    );
    // A hosted check has its deployment: the deployment sweep, not this one, decides about it.
    const hosted = await reserveCheck(db, {
      id: "check-dep",
      userId: PLATFORM_USER_ID,
      serverKind: "catalog",
      serverRef: "hosted-check",
      source: { kind: "npm", package: "hosted-check" } as never,
      secrets: "",
      proxyId: "p-check-dep",
    });
    expect(hosted?.id).toBe("check-dep");

    await checks.sweep();

    const gone = await checkState(db, "gone-probe");
    expect(gone).toMatchObject({ status: "failed", detail: CHECK_TEXT.timedOut });
    expect((await db.execute<{ o: string }>(sql`select check_outcome as o from mcp_servers where id = 'gone-probe'`)).rows[0]?.o).toBe(
      "fails",
    );
    expect((await checkState(db, "fresh-probe")).status).toBe("checking");
    expect((await checkState(db, "hosted-check")).status).toBe("checking");
  });
});
