import type { Config } from "../server/config.js";
import type { Db } from "../server/db/client.js";
import type { Auth } from "../server/features/auth/auth.js";
import type { Viewer } from "../server/features/auth/viewer.js";
import type { SandboxInfo } from "../shared/deployments.js";

// What the Hono server hands to every loader and action (see src/server/http/pages.ts).
export interface SwitchboardContext {
  config: Config;
  db: Db;
  auth: Auth;
  viewer: Viewer | null;
  githubEnabled: boolean;
  cspNonce: string;
  requestId: string;
  /** how hosted servers are isolated on this instance: every guarantee, held or missing (admin page, deploy panel) */
  sandbox: SandboxInfo;
}

declare module "react-router" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends SwitchboardContext {}
}
