// What the features that make the other kinds of deployment (a connection: connections/; a
// toolset: toolsets/) use of the deployments' rows. A connection or a toolset is a deployment row
// like a hosted server's, written only by this feature (repo.ts): reserved under the owner's plan
// lock, listed for its owner, at rest in the same statuses.
export { listUserDeployments, reserveDeployment, RESTING, type DeploymentRow, type ServerRef } from "./repo.js";
/** Whether a toolset's changed definitions only warn: set when the toolset is made (docs/product.md#toolsets). */
export { setWarnOnly } from "./definitions/definitions-repo.js";
