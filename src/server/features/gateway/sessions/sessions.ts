import type { Config } from "../../../config.js";
import type { Db } from "../../../db/client.js";
import type { Logger } from "../../../log.js";
import type { KeyRevocations } from "../../api-keys/revocations.js";
import { findKeyOwner } from "../../api-keys/repo.js";
import { liveSignIns } from "../repo.js";
import { reaches } from "../../orgs/accounts.js";
import type { McpChannel, Runner } from "../../runtime/runner.js";
import { BROWSER_CALLER } from "../admission/access.js";
import { Mux } from "./mux.js";
import { OutboundBudget } from "../wire/sse.js";
import type { OAuthPort } from "../admission/oauth-tokens.js";
import { Session } from "./session.js";

// The gateway's open sessions and the one Mux of each running server's MCP channel: how sessions
// are found, make room for each other, expire, and end when their API key or OAuth access token
// stops being valid.

const LISTS = ["tools", "prompts", "resources"] as const;

/** Something held open with a caller's credentials (a session, a 2026-07-28 listen stream): it ends when they are revoked. */
export interface Held {
  readonly userId: string;
  /** the API key's SHA-256 (or the browser marker) */
  readonly keyHash: string;
  readonly token?: string;
  readonly signIn?: string;
  /** its API key's expiry (epoch ms): it ends then */
  readonly expiresAt?: number;
  /** opened by a member on an organisation's deployment (that account's id): it ends when they are no longer a member */
  readonly via?: string;
  close(): void;
}

export interface SessionsDeps {
  config: Config;
  db: Db;
  log: Logger;
  runner: Pick<Runner, "channel">;
  revocations: KeyRevocations;
  oauth: Pick<OAuthPort, "verify">;
}

const DROPPED_LOG_EVERY_MS = 60_000;

export class Sessions {
  /** this gateway's streams together and the messages it dropped since start (the metrics read them: Gateway.counts()) */
  readonly totals = { held: 0, stalled: 0, dropped: 0 };
  private readonly open = new Map<string, Session>();
  /** per deployment: when a dropped message was last logged, and how many were dropped since */
  private readonly droppedLog = new Map<string, { at: number; since: number }>();
  /** streams other than sessions that end with their credentials */
  private readonly held = new Set<Held>();
  /** one per server process: a restarted server has a new channel, and so a new Mux */
  private readonly muxes = new WeakMap<McpChannel, Mux>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly stopWatchingKeys: () => void;

  constructor(private readonly d: SessionsDeps) {
    this.stopWatchingKeys = d.revocations.subscribe(() => void this.recheckKeys());
  }

  /** Starts the sweep that ends idle sessions (the platform's listen()). */
  start(): void {
    const idle = this.d.config.GATEWAY_SESSION_IDLE_MS;
    this.sweeper ??= setInterval(() => this.expire(), Math.min(60_000, Math.max(250, idle / 4))).unref();
  }

  /** The Mux of the deployment's server, or undefined while it is not running (or not yet initialized). */
  mux(deploymentId: string): Mux | undefined {
    const channel = this.d.runner.channel(deploymentId);
    if (!channel) return undefined;
    let mux = this.muxes.get(channel);
    if (!mux) {
      const outbound = new OutboundBudget(
        this.d.config.GATEWAY_STREAM_BUFFER_BYTES,
        this.d.config.GATEWAY_DEPLOYMENT_BUFFER_BYTES,
        this.totals,
      );
      mux = new Mux(channel, this.d.config.GATEWAY_REQUEST_TIMEOUT_MS, (why) => this.dropped(deploymentId, why), outbound);
      this.muxes.set(channel, mux);
    }
    return mux;
  }

  /**
   * A message the gateway dropped (a server's request beyond the ones waiting, a stray answer):
   * counted, and logged at most once a minute per deployment with how many since, so a server
   * (or client) sending them in a loop cannot flood the platform's log.
   */
  private dropped(deploymentId: string, why: string) {
    this.totals.dropped++;
    const now = Date.now();
    const last = this.droppedLog.get(deploymentId);
    if (last && now - last.at < DROPPED_LOG_EVERY_MS) return void last.since++;
    if (this.droppedLog.size >= 10_000) this.droppedLog.clear();
    this.d.log.warn({ deployment: deploymentId, why, since: last?.since ?? 0 }, "gateway dropped a message");
    this.droppedLog.set(deploymentId, { at: now, since: 0 });
  }

  /**
   * The open session with this id, as one of the user's sessions on this deployment over this
   * transport; anything else (another user's key, another deployment) is a session that does not exist.
   */
  find(id: string, userId: string, deploymentId: string, legacy: boolean): Session | undefined {
    const s = this.open.get(id);
    if (s && (s.closed || s.mux.dead)) {
      s.close();
      this.open.delete(id);
    }
    if (!s || s.closed || s.userId !== userId || s.deploymentId !== deploymentId || s.legacy !== legacy) return undefined;
    s.lastActive = Date.now();
    return s;
  }

  add(session: Session): void {
    session.mux.attach(session);
    this.open.set(session.id, session);
    this.endAtExpiry(session);
  }

  /** A holder whose key expires within a day ends at that moment; later ones, at a sweep after it. */
  private endAtExpiry(h: Held): void {
    if (h.expiresAt === undefined) return;
    const wait = h.expiresAt - Date.now();
    if (wait > 86_400_000) return;
    setTimeout(
      () => {
        if (h instanceof Session ? this.has(h) : this.held.has(h)) this.endHolder(h);
      },
      Math.max(0, wait),
    ).unref();
  }

  has(session: Session): boolean {
    return this.open.get(session.id) === session;
  }

  /** Room for one more session on the deployment: the longest-idle one without calls or open streams makes way. */
  makeRoom(mux: Mux): boolean {
    if (mux.sessions.size < this.d.config.GATEWAY_MAX_SESSIONS) return true;
    let idlest: Session | undefined;
    // Only a session can make way (a 2026-07-28 request or listen stream holds a stream while it lives).
    for (const s of mux.sessions)
      if (s instanceof Session && s.inflight.size === 0 && !s.hasOpenStream && (!idlest || s.lastActive < idlest.lastActive)) idlest = s;
    if (!idlest) return false;
    this.end(idlest);
    return true;
  }

  end(session: Session): void {
    session.close();
    this.open.delete(session.id);
  }

  /** What the deployment exposes changed (tools hidden or shown, definitions approved): its open sessions are told to list again. */
  listsChanged(deploymentId: string): void {
    for (const s of this.open.values()) {
      if (s.deploymentId !== deploymentId || s.closed) continue;
      for (const list of LISTS) s.notify({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` });
    }
  }

  get size(): number {
    return this.open.size;
  }

  private expire() {
    const now = Date.now();
    const cutoff = now - this.d.config.GATEWAY_SESSION_IDLE_MS;
    for (const s of this.open.values()) {
      if (s.closed || s.mux.dead || (s.lastActive < cutoff && s.inflight.size === 0 && !s.hasOpenStream)) this.end(s);
      else s.prune();
    }
    // A key that expired ends what it opened, open streams included (its requests are refused already).
    for (const h of this.holders()) if (h.expiresAt !== undefined && h.expiresAt <= now) this.endHolder(h);
  }

  /** A stream to end when its key, grant or sign-in is revoked; the function forgets it. */
  watch(h: Held): () => void {
    this.held.add(h);
    this.endAtExpiry(h);
    return () => void this.held.delete(h);
  }

  private holders(): Held[] {
    return [...this.open.values(), ...this.held];
  }

  private endHolder(h: Held): void {
    if (h instanceof Session) this.end(h);
    else {
      this.held.delete(h);
      h.close();
    }
  }

  /** A revoked key or grant (or deleted account) ends the sessions opened with it, open streams included. */
  private async recheckKeys() {
    const hashes = new Set<string>();
    const tokens = new Map<string, string>();
    const signIns = new Set<string>();
    for (const s of this.holders()) {
      if (s.signIn !== undefined) signIns.add(s.signIn);
      else if (s.keyHash.startsWith(BROWSER_CALLER)) continue;
      else if (s.token === undefined) hashes.add(s.keyHash);
      else tokens.set(s.token, s.userId);
    }
    // The playground's sessions end with the sign-in they came with (signing out is a revocation).
    if (signIns.size) {
      try {
        const live = await liveSignIns(this.d.db, [...signIns]);
        for (const s of this.holders()) if (s.signIn !== undefined && !live.has(s.signIn)) this.endHolder(s);
      } catch (e) {
        this.d.log.error({ err: e }, "could not re-check the sign-ins of open playground sessions");
      }
    }
    for (const [token, userId] of tokens) {
      try {
        const grant = await this.d.oauth.verify(token);
        if (grant && grant.userId === userId && grant.expiresAt.getTime() > Date.now()) continue;
        for (const s of this.holders()) if (s.token === token) this.endHolder(s);
      } catch (e) {
        this.d.log.error({ err: e }, "could not re-check the access tokens of open gateway sessions");
      }
    }
    // A member removed from (or leaving) the organisation that owns the deployment: what they opened on it ends.
    const members = new Set<string>();
    for (const s of this.holders()) if (s.via !== undefined) members.add(`${s.userId}\n${s.via}`);
    for (const pair of members) {
      const [userId, via] = pair.split("\n") as [string, string];
      try {
        if (await reaches(this.d.db, userId, via, "use")) continue;
        for (const s of this.holders()) if (s.userId === userId && s.via === via) this.endHolder(s);
      } catch (e) {
        this.d.log.error({ err: e }, "could not re-check the memberships of open gateway sessions");
      }
    }
    for (const hash of hashes) {
      try {
        const owner = await findKeyOwner(this.d.db, hash);
        if (owner && !(owner.expiresAt && owner.expiresAt.getTime() <= Date.now())) continue;
        for (const s of this.holders()) if (s.keyHash === hash) this.endHolder(s);
      } catch (e) {
        this.d.log.error({ err: e }, "could not re-check the keys of open gateway sessions");
      }
    }
  }

  /** Every session ends; no timer or listener is left behind. */
  close(): void {
    clearInterval(this.sweeper);
    this.stopWatchingKeys();
    for (const s of [...this.open.values()]) this.end(s);
  }
}
