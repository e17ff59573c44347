export { Gateway, GATEWAY_TEXT, SUPPORTED_VERSIONS, type GatewayDeps } from "./gateway.js";
