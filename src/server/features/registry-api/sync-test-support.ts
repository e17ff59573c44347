// The registry sync's integration tests share this: a stand-in upstream, an app kept in step with
// it, its admin and a sync to run by hand.
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { startFakeRegistry, type FakeRegistry } from "~support/fake-registry.js";
import { createLogger } from "../../log.js";
import { RegistrySync } from "./sync.js";

export interface SyncTest {
  up: FakeRegistry;
  t: TestApp;
  admin: Client & { id: string };
  sync: RegistrySync;
  close(): Promise<void>;
}

export const silentLog = createLogger({ level: "silent", pretty: false });

export async function startSyncTest(env: Record<string, string> = {}): Promise<SyncTest> {
  const up = await startFakeRegistry();
  const t = await createTestApp({ ADMIN_EMAILS: "admin@example.com", REGISTRY_SYNC_URL: up.url, ...env });
  const admin = await signedInUser(t, "admin@example.com");
  const sync = new RegistrySync({ db: t.db.database.db, log: silentLog, config: t.config });
  return {
    up,
    t,
    admin,
    sync,
    close: async () => {
      await t.close();
      await up.close();
    },
  };
}
