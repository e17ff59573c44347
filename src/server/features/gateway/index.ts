export { Gateway, GATEWAY_TEXT, type GatewayDeps } from "./gateway.js";
export { SUPPORTED_VERSIONS } from "./protocol.js";
export { clusterAuthorized, CLUSTER_HEADER } from "./cluster.js";
