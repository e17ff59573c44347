import type { DbOrTx } from "../../db/client.js";
import { deleteDeploymentResource, insertDeploymentResource } from "./repo.js";
import { resourceUrl } from "./resource.js";

/**
 * What deployments tell the authorization server of their resources (features/deployments'
 * DeploymentResources port, filled in by the platform): a deployment's URL is its resource; its
 * row is written and removed, its tokens with it, in the deployment's own transaction.
 */
export function deploymentResources(publicUrl: string) {
  return {
    url: (proxyId: string) => resourceUrl(publicUrl, proxyId),
    made: (tx: DbOrTx, deploymentId: string, url: string) => insertDeploymentResource(tx, deploymentId, url),
    gone: (tx: DbOrTx, deploymentId: string) => deleteDeploymentResource(tx, deploymentId),
  };
}
