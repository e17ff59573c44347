import type { IncomingMessage, ServerResponse } from "node:http";
import type { BodyBudget } from "../in-flight.js";
import type { whenAnswered } from "../observe.js";
import type { Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import type { Session } from "../sessions/session.js";
import type { Sessions } from "../sessions/sessions.js";
import type { StatelessLane } from "../stateless/lane.js";
import type { TargetExposures } from "../target-exposures.js";

// What the two transports' HTTP methods (streamable-http.ts, legacy-sse.ts) ask of the gateway
// they serve; serve.ts implements it.

export interface TransportHost {
  /** the open sessions and each running server's Mux */
  readonly sessions: Sessions;
  /** the 2026-07-28 requests: no sessions (stateless/lane.ts) */
  readonly stateless: StatelessLane;
  /** GATEWAY_MAX_BODY_BYTES */
  readonly maxBodyBytes: number;
  /** what an admitted request's body without a declared size counts against (in-flight.ts) */
  budgetOf(req: IncomingMessage): BodyBudget | undefined;
  /** 503: the server is starting or restarting (retry soon), or not running at all */
  unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> };
  /** each deployment's exposure rules (hidden tools, pinned definitions) for the Mux */
  readonly exposures: Pick<TargetExposures, "of">;
  /** what happens once a request is answered (observe.ts) */
  onDone(
    req: IncomingMessage,
    target: GatewayTarget,
    msg: Msg,
    started: number,
    bytesIn: number,
    client: Session["client"] | undefined,
    transport: "streamable" | "sse",
  ): ReturnType<typeof whenAnswered>;
  /** one more for 'Total Usage' */
  count(res: ServerResponse, target: GatewayTarget): void;
}
