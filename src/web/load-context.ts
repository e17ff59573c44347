import type { Config } from "../server/config.js";
import type { Db } from "../server/db/client.js";
import type { Auth } from "../server/features/auth/auth.js";
import type { Viewer } from "../server/features/auth/viewer.js";

// What the Hono server hands to every loader and action (see src/server/http/pages.ts).
export interface SwitchboardContext {
  config: Config;
  db: Db;
  auth: Auth;
  viewer: Viewer | null;
  githubEnabled: boolean;
  cspNonce: string;
  requestId: string;
  /** why hosted servers are not (fully) isolated on this instance; shown to admins */
  sandboxWarnings: readonly string[];
}

declare module "react-router" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends SwitchboardContext {}
}
