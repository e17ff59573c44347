export { Gateway, GATEWAY_TEXT, type GatewayDeps, type WakePort } from "./gateway.js";
export { SUPPORTED_VERSIONS } from "./protocol.js";
export { clusterAuthorized, CLUSTER_HEADER } from "./forwarding.js";
