import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "./admission/access.js";
import type { GatewayTarget } from "./repo.js";

// The steps a request takes through a gateway (gateway.ts): admission (admission/), the front
// step (front.ts: bytes in flight, fair use, waking) and then onward, served here (serve.ts) or
// forwarded to the runner holding the deployment (forwarding.ts). Which steps a gateway has is
// its role (roles.ts).

/** A request's place: the deployment's proxy id, its endpoint and query, when it reached the gateway. */
export interface Route {
  proxyId: string;
  kind: "mcp" | "sse" | "messages";
  query: string;
  /** performance.now() when the request reached the gateway */
  started: number;
}

/** Who may call: the caller's credential and the deployment, or undefined once it answered the refusal. */
export interface Admission {
  admit(
    req: IncomingMessage,
    res: ServerResponse,
    proxyId: string,
    query: string,
  ): Promise<{ target: GatewayTarget; who: Caller } | undefined>;
  /** the deployment as it is now (after a wake: where it runs) */
  refresh(proxyId: string): Promise<GatewayTarget | undefined>;
  /** its cache of proxy id -> deployment, for one or all */
  forget(proxyId?: string): void;
}

/** Where an admitted request goes on to. */
export interface Onward {
  pass(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, route: Route): unknown;
  close(): void;
}
