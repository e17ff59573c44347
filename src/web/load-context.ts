import type { Config } from "../server/config.js";
import type { Db } from "../server/db/client.js";

// What the Hono server hands to every loader and action (see src/server/http/pages.ts).
export interface SwitchboardContext {
  config: Config;
  db: Db;
  cspNonce: string;
  requestId: string;
}

declare module "react-router" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends SwitchboardContext {}
}
