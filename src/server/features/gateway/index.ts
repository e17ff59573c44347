export { Gateway, GATEWAY_TEXT, totalCounts, type GatewayCounts } from "./gateway.js";
export { allInOneGateway, frontGateway, runnerGateway } from "./roles.js";
export type { WakePort } from "./front.js";
export { SUPPORTED_VERSIONS } from "./protocol.js";
export { clusterAuthorized, CLUSTER_HEADER } from "./forwarding.js";
