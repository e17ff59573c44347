// Which of three a gateway is, decided once from the optional deps it was given (docs/operations.md):
// "all-in-one" serves the sessions of the runner in its own process; a "front" gateway (no runner)
// admits requests and forwards them to the runner holding the deployment (cluster.ts); a runner's
// gateway ("runner", `forwarded`) serves what front gateways forwarded, whose callers they admitted.

export type GatewayMode = "all-in-one" | "front" | "runner";

export function gatewayMode(d: { runner?: unknown; clusterSecret?: string; forwarded?: boolean }): GatewayMode {
  if (d.forwarded) {
    if (!d.runner) throw new Error("a runner's gateway needs the runner");
    return "runner";
  }
  if (d.runner) return "all-in-one";
  if (!d.clusterSecret) throw new Error("a front gateway needs CLUSTER_SECRET");
  return "front";
}
