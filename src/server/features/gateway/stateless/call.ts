import type { GatewayTarget } from "../repo.js";
import type { Mux } from "../sessions/mux.js";
import type { MuxSession, Outlet } from "../sessions/mux-session.js";
import { isObject, RPC, serialize, type ClientCapabilities, type Id, type Msg } from "../protocol.js";
import { errorAnswer, LOG_LEVELS, MAY_ASK, type Envelope } from "./envelope.js";
import { ASK_GATHER_MS, ASK_WAIT_MS, MAX_HELD, MAX_HELD_BYTES, MAX_QUESTIONS, QUESTIONS } from "./limits.js";
import type { LaneResponse } from "./response.js";
import { modernAnswer } from "./translate.js";

// One client request of the 2026-07-28 lane across its 'input_required' rounds: the server's call
// keeps running while the client holds its questions, and the client's retry carries on with it.

/** What a call needs of the lane that holds it. */
export interface CallOwner {
  readonly requestTimeoutMs: number;
  /** the sealed requestState of the call's current round */
  seal(call: Call): string;
  cancel(call: Call, reason: string): void;
  forget(call: Call): void;
}

/** One request's view of the server's channel: a peer of the Mux that lives as long as the request (and its retries). */
class OneRequest implements MuxSession {
  readonly inflight = new Map<string, string>();
  readonly subscriptions = new Set<string>();
  readonly standalone = undefined;
  readonly hasOpenStream = true;
  lastActive = Date.now();
  /** while its client holds the server's questions: the server's other messages are not its */
  parked = false;
  constructor(readonly capabilities: ClientCapabilities) {}
  notify(): boolean {
    return false;
  }
  close(): void {}
}

/** One client request to the server, across its 'input_required' rounds. */
export class Call implements Outlet {
  readonly peer: OneRequest;
  /** the HTTP request answering now (undefined while the client has the server's questions) */
  private http?: {
    response: LaneResponse;
    clientId: Id;
    progressToken?: unknown;
    logLevel?: Envelope["logLevel"];
    done: (answer: Msg | undefined, bytes: number) => void;
  };
  /** the server's questions not yet answered: key -> the server's request id, and the question */
  readonly asked = new Map<string, Id>();
  private readonly questions = new Map<string, { method: string; params: unknown }>();
  private gathering = false;
  private gatherTimer?: NodeJS.Timeout;
  private held: Msg[] = [];
  private heldBytes = 0;
  private final?: Msg;
  private seq = 0;
  finished = false;
  round = 0;
  expiry?: NodeJS.Timeout;

  constructor(
    private readonly lane: CallOwner,
    readonly id: string,
    readonly mux: Mux<MuxSession>,
    readonly target: GatewayTarget,
    readonly userId: string,
    readonly method: string,
    readonly name: string | undefined,
    /** the client's id of the first request: the server's call is known by it */
    readonly firstId: Id,
    capabilities: ClientCapabilities,
    private readonly serverInfo: unknown,
  ) {
    this.peer = new OneRequest(capabilities);
  }

  /** The HTTP request that answers now: the first one, or a retry with answers. */
  attach(
    response: LaneResponse,
    clientId: Id,
    envelope: Envelope,
    progressToken: unknown,
    done: (answer: Msg | undefined, bytes: number) => void,
  ): void {
    this.http = { response, clientId, progressToken, logLevel: envelope.logLevel, done };
    this.peer.parked = false;
    // The client left before the answer: the server's call is cancelled (unless the client now holds questions).
    response.res.once("close", () => {
      if (this.http?.response === response && !this.finished) this.lane.cancel(this, "The client closed the request");
    });
    this.heldBytes = 0;
    for (const m of this.held.splice(0)) this.push(m, false);
    if (this.final) {
      const f = this.final;
      this.final = undefined;
      this.push(f, true);
    }
  }

  push(msg: Msg, final: boolean): void {
    if (this.finished) return;
    const http = this.http;
    if (final) {
      if (!http) {
        this.final = msg; // answered while the client holds questions: its retry gets it
        return;
      }
      this.finished = true;
      this.lane.forget(this);
      this.closeQuestions("The request was answered");
      const sent = http.response.finish(modernAnswer(this.method, { ...msg, id: http.clientId }, this.serverInfo));
      http.done(sent, http.response.bytes);
      return;
    }
    if (msg.method !== undefined && msg.id !== undefined && msg.id !== null) return this.ask(msg);
    if (!http) {
      const size = serialize(msg)?.text.length ?? Infinity;
      if (this.held.length < MAX_HELD && this.heldBytes + size <= MAX_HELD_BYTES) {
        this.held.push(msg);
        this.heldBytes += size;
      }
      return;
    }
    if (msg.method === "notifications/progress") {
      if (http.progressToken === undefined) return;
      http.response.frame({ ...msg, params: { ...msg.params, progressToken: http.progressToken } });
      return;
    }
    if (msg.method === "notifications/message") {
      // Logs only for a request that asked for them, at its level or above.
      const level = LOG_LEVELS.indexOf(msg.params?.level as never);
      if (!http.logLevel || level < LOG_LEVELS.indexOf(http.logLevel)) return;
      http.response.frame(msg);
      return;
    }
    // The rest (a cancelled question, task and elicitation-complete notices) does not exist in this revision.
  }

  /** The server asks the client something: gathered briefly, then sent as the request's 'input_required' answer. */
  private ask(m: Msg): void {
    if (!MAY_ASK.has(this.method) || !QUESTIONS.has(m.method!)) {
      return this.mux.answerServer(
        this.peer,
        errorAnswer(
          m.id,
          RPC.methodNotFound,
          `A ${this.method} request cannot be asked ${String(m.method).slice(0, 100)} in protocol revision 2026-07-28`,
        ),
      );
    }
    if (this.asked.size >= MAX_QUESTIONS)
      return this.mux.answerServer(
        this.peer,
        errorAnswer(m.id, RPC.serverError, `Too many questions open for one request (at most ${MAX_QUESTIONS})`),
      );
    const key = `${String(m.method).split("/")[0]}-${++this.seq}`;
    this.asked.set(key, m.id!);
    const { _meta: _, elicitationId: _e, task: _t, ...params } = isObject(m.params) ? m.params : {};
    this.questions.set(key, { method: m.method!, params });
    if (this.gathering) return;
    this.gathering = true;
    this.gatherTimer = setTimeout(() => {
      this.gathering = false;
      this.askOpenQuestions();
    }, ASK_GATHER_MS);
  }

  /** Answers a question of the server's with the client's answer. */
  answer(key: string, result: Record<string, unknown>): void {
    const serverId = this.asked.get(key);
    if (serverId === undefined) return;
    this.asked.delete(key);
    this.questions.delete(key);
    this.mux.answerServer(this.peer, { jsonrpc: "2.0", id: serverId, result });
  }

  /** The questions nobody will answer now: an elicitation is declined ('cancel'), anything else gets an error. */
  closeQuestions(why: string): void {
    for (const [key, serverId] of [...this.asked]) {
      const q = this.questions.get(key);
      this.asked.delete(key);
      this.questions.delete(key);
      this.mux.answerServer(
        this.peer,
        q?.method === "elicitation/create"
          ? { jsonrpc: "2.0", id: serverId, result: { action: "cancel" } }
          : errorAnswer(serverId, RPC.serverError, why),
      );
    }
  }

  /**
   * Ends the current HTTP request with every open question and a new requestState; the server's
   * call waits for the retry. Nothing to ask, or nobody to ask it (the client holds the questions
   * already): nothing happens.
   */
  askOpenQuestions(): void {
    const http = this.http;
    if (this.finished || !http || this.asked.size === 0 || this.gathering) return;
    const inputRequests: Record<string, unknown> = {};
    for (const [key, q] of this.questions) inputRequests[key] = q;
    this.http = undefined;
    this.peer.parked = true;
    this.round++;
    const answer: Msg = {
      jsonrpc: "2.0",
      id: http.clientId,
      result: { resultType: "input_required", inputRequests, requestState: this.lane.seal(this) },
    };
    const sent = http.response.finish(answer);
    http.done(sent, http.response.bytes);
    this.mux.rearm(this.peer, this.firstId, ASK_WAIT_MS + this.lane.requestTimeoutMs);
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => this.lane.cancel(this, "The client did not answer the server's questions in time"), ASK_WAIT_MS).unref();
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.lane.forget(this);
    clearTimeout(this.gatherTimer);
    this.closeQuestions("The request was cancelled");
    const http = this.http;
    if (http) {
      http.done(undefined, http.response.bytes);
      // Its client may still be there (the gateway is stopping): it is told why rather than left with nothing.
      http.response.finish(errorAnswer(http.clientId, RPC.serverError, "The request was cancelled"));
    }
  }

  get waiting(): boolean {
    return !this.http && !this.finished;
  }
}
