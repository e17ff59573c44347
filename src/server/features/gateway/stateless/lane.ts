import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import type { Held } from "../sessions/sessions.js";
import type { Exposure } from "../exposure.js";
import { rpcError, sendJson } from "../wire/http.js";
import type { Mux } from "../sessions/mux.js";
import { requestName } from "../observe.js";
import { capabilityFlags, isObject, LATEST_VERSION, RPC, type Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import { Call } from "./call.js";
import { checkModern, errorAnswer, legacyParams, type Envelope } from "./envelope.js";
import { ASK_WAIT_MS, MAX_CALLS, MAX_LISTEN_URIS, MAX_LISTENS, MAX_LISTENS_PER_CALLER } from "./limits.js";
import { RequestStates } from "./request-state.js";
import { Listener } from "./listener.js";
import { LaneResponse } from "./response.js";
import { discoverResult, modernAnswer, type ServerFacts } from "./translate.js";

// The 2026-07-28 lane (docs/gateway.md#protocol-revisions): each request stands alone. The hosted
// server still speaks an earlier revision over its one stdio channel, which it shares with the
// session clients: the gateway initialized it once, and translates. A request goes through the
// server's Mux as a one-request peer of its own; the answer gets the revision's result fields;
// progress and (when asked for) logs stream before it. A request the server asks something of
// (sampling, elicitation, roots) ends 'input_required' with the question and a sealed
// requestState; the server's call keeps running, and the client's retry with the answers carries
// on with it. subscriptions/listen is a stream of the change notifications the client asked for.

export interface LaneHost {
  /** the deployment's Mux, or undefined while its server is not running */
  mux(target: GatewayTarget): Mux | undefined;
  unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> };
  exposure(target: GatewayTarget): Exposure;
  /** what happens once a request is answered (log line, request log, metrics) */
  done(
    req: IncomingMessage,
    target: GatewayTarget,
    msg: Msg,
    started: number,
    bytesIn: number,
    client: Envelope["client"],
  ): (answer: Msg | undefined, bytesOut: number) => void;
  /** one more for 'Total Usage' */
  count(res: ServerResponse, target: GatewayTarget): void;
  /** a long-lived stream to end when its key, grant or sign-in is revoked (and to forget when it ends) */
  watch(holder: Held): () => void;
  requestTimeoutMs: number;
}

export class StatelessLane {
  /** open calls by id (the ones waiting for a retry are found through their requestState) */
  private readonly calls = new Map<string, Call>();
  private readonly listeners = new Map<string, Set<Listener>>();
  /** each server process's initialize result (what discover says, and its identity) */
  private readonly facts = new WeakMap<Mux, ServerFacts>();
  /** open calls per deployment */
  private readonly openCalls = new Map<string, number>();
  /** requestState is sealed with a key of this process: the server's call it continues lives here too */
  private readonly states = new RequestStates(ASK_WAIT_MS);
  private seq = 0;

  constructor(private readonly host: LaneHost) {}

  get requestTimeoutMs(): number {
    return this.host.requestTimeoutMs;
  }

  /** A POST that claims this revision (or whose header does). */
  async post(
    req: IncomingMessage,
    res: ServerResponse,
    target: GatewayTarget,
    who: Caller,
    msg: Msg,
    bytes: number,
    started: number,
  ): Promise<void> {
    if (msg.method === undefined) return void res.writeHead(202).end(); // an answer: this revision's clients send none
    if (msg.id === undefined || msg.id === null) return void res.writeHead(202).end(); // notifications: a closed stream already cancelled its request
    const mux = this.host.mux(target);
    let init: ServerFacts | undefined;
    if (mux && !mux.dead) {
      // The server's initialize result, asked once per server process (the hot path does not wait for it again).
      init = this.facts.get(mux);
      if (!init) {
        const answer = await mux
          .initialize({ protocolVersion: LATEST_VERSION })
          .catch((e: unknown) => errorAnswer(null, RPC.serverError, (e as Error).message));
        if (!answer.error) {
          init = answer.result as ServerFacts;
          this.facts.set(mux, init);
        }
      }
    }
    // The client left while the server was asked who it is: nothing to answer, nothing to start.
    if (res.destroyed) return;
    const checked = checkModern(req, msg, init?.capabilities ?? undefined);
    if ("refusal" in checked) {
      const r = checked.refusal;
      const body = JSON.stringify(errorAnswer(msg.id, r.code, r.message, r.data));
      return sendJson(res, r.status, body);
    }
    const envelope = checked.envelope;
    if (!mux || mux.dead || !init) {
      const u = this.host.unavailable(target);
      return rpcError(res, u.status, u.message, u.headers, RPC.serverError, msg.id);
    }
    const done = this.host.done(req, target, msg, started, bytes, envelope.client);
    const response = new LaneResponse(res, mux.outbound);
    const method = msg.method;
    if (method === "server/discover") {
      this.host.count(res, target);
      const answer = modernAnswer(method, { jsonrpc: "2.0", id: msg.id, result: discoverResult(init) }, init.serverInfo);
      return void done(response.finish(answer), response.bytes);
    }
    if (method === "subscriptions/listen") return this.listen(res, target, who, mux, msg, init, done);
    const state = msg.params?.requestState;
    if (state !== undefined) return this.resume(response, target, who, msg, envelope, done);
    const open = this.openCalls.get(target.id) ?? 0;
    if (open >= MAX_CALLS) {
      const answer = errorAnswer(
        msg.id,
        RPC.serverError,
        `Too many requests in flight for this deployment (at most ${MAX_CALLS}); try again when some have finished`,
      );
      return void done(response.finish(answer, 429), response.bytes);
    }
    const call = new Call(
      this,
      `c${++this.seq}`,
      mux,
      target,
      who.userId,
      method,
      requestName(method, msg.params),
      msg.id,
      capabilityFlags(envelope.capabilities),
      init.serverInfo,
    );
    this.calls.set(call.id, call);
    this.openCalls.set(target.id, open + 1);
    call.attach(response, msg.id, envelope, msg.params?._meta?.progressToken, done);
    const params = legacyParams(msg.params);
    if (mux.forward(call.peer, { jsonrpc: "2.0", id: msg.id, method, ...(params ? { params } : {}) }, call, this.host.exposure(target)))
      this.host.count(res, target);
  }

  /** A retry with the answers to the server's questions: they go to the server, and this request answers for its call. */
  private resume(
    response: LaneResponse,
    target: GatewayTarget,
    who: Caller,
    msg: Msg,
    envelope: Envelope,
    done: (answer: Msg | undefined, bytes: number) => void,
  ): void {
    const call = this.open(msg.params?.requestState);
    const name = requestName(msg.method, msg.params);
    if (
      !call ||
      !call.waiting ||
      call.userId !== who.userId ||
      call.target.id !== target.id ||
      call.method !== msg.method ||
      call.name !== name
    ) {
      const answer = errorAnswer(msg.id, RPC.invalidParams, "Invalid or expired requestState", { reason: "invalid_request_state" });
      return void done(response.finish(answer), response.bytes);
    }
    this.host.count(response.res, target);
    const responses = isObject(msg.params?.inputResponses) ? msg.params.inputResponses : {};
    for (const key of [...call.asked.keys()]) {
      const value = responses[key];
      // Bare results only (an ElicitResult, a CreateMessageResult, a ListRootsResult); a wrapper is no answer.
      if (!isObject(value) || "method" in value || "jsonrpc" in value) continue;
      call.answer(key, value);
    }
    clearTimeout(call.expiry);
    call.mux.rearm(call.peer, call.firstId, this.host.requestTimeoutMs);
    call.attach(response, msg.id!, envelope, msg.params?._meta?.progressToken, done);
    // Questions left unanswered are asked again.
    call.askOpenQuestions();
  }

  /** requestState: which call and round, until when; sealed with this process's key (request-state.ts). */
  seal(call: Call): string {
    return this.states.seal({ call: call.id, round: call.round });
  }

  private open(state: unknown): Call | undefined {
    const s = this.states.open(state);
    const call = s && this.calls.get(s.call);
    // Only the latest round's state: an older one was already answered.
    return call && call.round === s.round ? call : undefined;
  }

  /** The client left, or never came back with answers: the server's call is cancelled and its questions answered 'cancel'. */
  cancel(call: Call, reason: string): void {
    if (call.finished) return;
    call.closeQuestions(reason);
    call.mux.notifyServer(call.peer, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: call.firstId, reason } });
    call.abandon();
  }

  forget(call: Call): void {
    clearTimeout(call.expiry);
    if (!this.calls.delete(call.id)) return;
    const n = (this.openCalls.get(call.target.id) ?? 1) - 1;
    if (n > 0) this.openCalls.set(call.target.id, n);
    else this.openCalls.delete(call.target.id);
  }

  private listen(
    res: ServerResponse,
    target: GatewayTarget,
    who: Caller,
    mux: Mux,
    msg: Msg,
    init: { capabilities?: Record<string, unknown>; serverInfo?: unknown },
    done: (answer: Msg | undefined, bytes: number) => void,
  ): void {
    const filter = msg.params?.notifications;
    const uris = isObject(filter) ? filter.resourceSubscriptions : undefined;
    if (
      !isObject(filter) ||
      (uris !== undefined &&
        !(Array.isArray(uris) && uris.length <= MAX_LISTEN_URIS && uris.every((u) => typeof u === "string" && u.length <= 2048)))
    ) {
      const answer = errorAnswer(
        msg.id,
        RPC.invalidParams,
        "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter",
      );
      const body = JSON.stringify(answer);
      sendJson(res, 200, body);
      return done(answer, Buffer.byteLength(body));
    }
    const set = this.listeners.get(target.id) ?? new Set<Listener>();
    const mine = [...set].filter((l) => l.keyHash === who.keyHash && l.token === who.token && l.signIn === who.signIn).length;
    if (set.size >= MAX_LISTENS || mine >= MAX_LISTENS_PER_CALLER) {
      const answer = errorAnswer(msg.id, RPC.internal, "Subscription limit reached");
      const body = JSON.stringify(answer);
      sendJson(res, 200, body);
      return done(answer, Buffer.byteLength(body));
    }
    this.host.count(res, target);
    const caps = init.capabilities ?? {};
    const has = (k: string) => caps[k] !== undefined;
    const subscribable = isObject(caps.resources) && caps.resources.subscribe === true;
    // The gateway itself announces list changes (tool selection, approved definitions) for every list the server has.
    const wants = {
      tools: filter.toolsListChanged === true && has("tools"),
      prompts: filter.promptsListChanged === true && has("prompts"),
      resources: filter.resourcesListChanged === true && has("resources"),
    };
    const honored: Record<string, unknown> = {};
    if (wants.tools) honored.toolsListChanged = true;
    if (wants.prompts) honored.promptsListChanged = true;
    if (wants.resources) honored.resourcesListChanged = true;
    const subscribe = subscribable && Array.isArray(uris) ? [...new Set(uris as string[])] : [];
    if (subscribe.length) honored.resourceSubscriptions = subscribe;
    const l = new Listener(this, target.id, mux, res, msg.id!, wants, init.serverInfo, who);
    l.unwatch = this.host.watch(l);
    set.add(l);
    this.listeners.set(target.id, set);
    mux.attach(l);
    l.subscribe(subscribe);
    l.acknowledge(honored);
    done({ jsonrpc: "2.0", id: msg.id!, result: {} }, 0);
  }

  dropListener(l: Listener): void {
    const set = this.listeners.get(l.deploymentId);
    set?.delete(l);
    if (set?.size === 0) this.listeners.delete(l.deploymentId);
  }

  /** What the deployment exposes changed (tool selection, approved definitions): its listeners hear it. */
  listsChanged(deploymentId: string): void {
    for (const l of this.listeners.get(deploymentId) ?? [])
      for (const list of ["tools", "prompts", "resources"]) l.notify({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` });
  }

  close(): void {
    for (const set of [...this.listeners.values()]) for (const l of [...set]) l.end(true);
    for (const c of [...this.calls.values()]) this.cancel(c, "The gateway is shutting down");
  }
}
