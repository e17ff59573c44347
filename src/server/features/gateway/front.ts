import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../log.js";
import type { Caller } from "./admission/access.js";
import type { FairUse } from "./fair-use.js";
import type { InFlight } from "./in-flight.js";
import { markWoke, whenAnswered, type GatewayObserver } from "./observe.js";
import { RPC, type Msg } from "./protocol.js";
import type { GatewayTarget } from "./repo.js";
import type { Session } from "./sessions/session.js";
import type { Admission, Route } from "./steps.js";
import { GATEWAY_TEXT } from "./text.js";
import { rateLimited, type RefusalHost } from "./transports/rate-limited.js";
import { inFlightRefusal, rpcError } from "./wire/http.js";

// The front step, by the gateway the client reached (a front gateway's and an all-in-one's; a
// runner's requests came through one): bytes in flight (in-flight.ts), fair use (fair-use.ts),
// and a sleeping deployment woken while the request waits.

/** How a gateway wakes a sleeping deployment: resolves once it answers, or with why it cannot. */
export interface WakePort {
  wake(id: string): Promise<{ ok: true } | { ok: false; status: number; message: string; retryAfter?: number }>;
}

export interface FrontDeps {
  log: Logger;
  observer?: GatewayObserver;
  /** fair use: requests a minute per deployment and per credential, by plan */
  fairUse?: Pick<FairUse, "check">;
  /** wakes a sleeping deployment and resolves once it answers (features/deployments/sleep/waker.ts); absent: nothing sleeps */
  wake?: WakePort;
}

export interface FrontParts {
  admission: Pick<Admission, "forget" | "refresh">;
  inflight: InFlight;
  maxBodyBytes: number;
  /** whether the deployment's server answers in this process (an all-in-one's runner): a starting one is then not woken again */
  answersHere(deploymentId: string): boolean;
  /** the legacy session a refused request's answer also goes to, when sessions are served here */
  legacySession?(sessionId: string, userId: string, deploymentId: string): Pick<Session, "notify"> | undefined;
}

/**
 * Statuses a request waits through (a sleeping deployment waking, or one starting after a wake):
 * never a crash loop or a failure. A woken deployment passes through 'installing' too (its runner
 * finds the volume and skips the install), and a request looked up then must wait like the rest.
 */
const WAKING: ReadonlySet<string> = new Set(["sleeping", "queued", "installing", "starting"]);

export class FrontStep implements RefusalHost {
  constructor(
    private readonly d: FrontDeps,
    private readonly p: FrontParts,
  ) {}

  /** The target to go on with (after a wake, as it is now), or undefined once the request was answered here. */
  async pass(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, route: Route) {
    const method = req.method ?? "GET";
    // A request that does not fit is refused before its body is read.
    const full = method === "POST" ? this.p.inflight.admitPost(req, res, target.id, who.keyHash, this.p.maxBodyBytes) : null;
    if (full) return void inFlightRefusal(res, full, this.p.inflight.capBytes);
    if (this.d.fairUse && method !== "DELETE") {
      const v = this.d.fairUse.check(target.id, target.userId, who.keyHash);
      const verdict = v instanceof Promise ? await v : v;
      if (!verdict.ok) return void (await rateLimited(this, req, res, target, who, route, verdict));
    }
    // A session ended by its client after the deployment fell asleep: it went with the process, and ending it wakes nothing.
    if (method === "DELETE" && target.status === "sleeping") return void rpcError(res, 404, GATEWAY_TEXT.sessionNotFound);
    // Asleep (or starting after a wake): woken, and the request waits for it rather than being refused.
    // (Sleeping with a channel still open: its process is being stopped and answers no more.)
    if (this.d.wake && (target.status === "sleeping" || (WAKING.has(target.status) && !this.p.answersHere(target.id))))
      return this.wakeFor(this.d.wake, req, res, target, route.proxyId);
    return target;
  }

  // What fair use's refusal (transports/rate-limited.ts) asks of it.
  get maxBodyBytes(): number {
    return this.p.maxBodyBytes;
  }

  budgetOf(req: IncomingMessage) {
    return this.p.inflight.of(req);
  }

  onDone(req: IncomingMessage, target: GatewayTarget, msg: Msg, started: number, bytesIn: number, transport: "streamable" | "sse") {
    const answered = whenAnswered(this.d.log, this.d.observer, { req, target, msg, started, bytesIn, client: undefined, transport });
    return this.p.inflight.untilAnswered(req, answered);
  }

  legacySession(sessionId: string, userId: string, deploymentId: string) {
    return this.p.legacySession?.(sessionId, userId, deploymentId);
  }

  /** Wakes the request's deployment and waits for it; undefined when it cannot (answered already), else the target as it is now. */
  private async wakeFor(wake: WakePort, req: IncomingMessage, res: ServerResponse, target: GatewayTarget, proxyId: string) {
    const began = performance.now();
    const r = await wake.wake(target.id);
    if (!r.ok) {
      rpcError(res, r.status, r.message, r.retryAfter ? { "retry-after": String(r.retryAfter) } : {}, RPC.serverError);
      return undefined;
    }
    markWoke(req, Math.round(performance.now() - began));
    // Where (and how) it runs now: a front gateway forwards there.
    this.p.admission.forget(proxyId);
    return (await this.p.admission.refresh(proxyId)) ?? target;
  }
}
