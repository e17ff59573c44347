// OAuth for hosted servers (docs/decisions/010-oauth.md): Switchboard is the authorization
// server, each deployment URL a protected resource. What other features use of it.
export { protectedResourceMetadataUrl, resourceUrl, OAUTH_SCOPES } from "./resource.js";
export { deploymentResources } from "./deployment-resources.js";
export { verifyAccessToken, touchGrant, listConnectedApps, revokeConnectedApp, type AccessGrant, type ConnectedApp } from "./grants.js";
export { consentContext, registeredRedirect, type ConsentContext } from "./consent.js";
export { OAUTH_SERVER_TEXT } from "./text.js";
