import type { DbOrTx } from "../../db/client.js";

// A deployment's URL is an OAuth protected resource (docs/decisions/010-oauth.md). The
// authorization server (features/oauth) keeps the resource's row; deployments tell it, through
// this port (the platform fills it in), in the transaction that makes or removes the deployment,
// so a removed deployment's tokens never open its address again once it is deployed anew (the
// address is kept: docs/decisions/024-kept-addresses.md).

export interface DeploymentResources {
  /** the deployment's URL, which its tokens are bound to */
  url(proxyId: string): string;
  /** the deployment exists now, at `url` */
  made(tx: DbOrTx, deploymentId: string, url: string): Promise<void>;
  /** the deployment is removed or replaced: its resource goes, with every token bound to it */
  gone(tx: DbOrTx, deploymentId: string): Promise<unknown>;
}
