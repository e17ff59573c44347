import type { Config } from "../server/config.js";
import type { Db } from "../server/db/client.js";
import type { Auth } from "../server/features/auth/auth.js";
import type { Viewer } from "../server/features/auth/viewer.js";
import type { ApiCall } from "../shared/api-answer.js";
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
  /**
   * A route action's call to the REST API with the visitor's cookies: the same checks, service
   * call and error answers as the browser's own call (every form's one way to change anything).
   */
  api: ApiCall;
  /** Reads the signed-in viewer again (an action changed their name or address) for the loaders that run after it. */
  refreshViewer: (setCookies?: string[]) => Promise<void>;
  /** This page's forms may lead the browser to `url`'s origin (an OAuth client's redirect): its form-action names it. */
  allowFormAction: (url: string) => void;
}

declare module "react-router" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends SwitchboardContext {}
}
