import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Logger } from "../log.js";
import { RESYNC, Subscribers, type Bus } from "./bus.js";

// Facts every process must learn at once (a revoked key, a catalogue write) travel over
// PostgreSQL's LISTEN/NOTIFY, so the cluster needs no service beyond its database and the embedded
// default works unchanged. One channel carries every topic; each process holds one connection
// that listens on it and publishes through its ordinary pool.
//
// "At once" means before the request that changed the fact is answered: a key revoked through one
// process is refused by every gateway on the very next request. NOTIFY alone cannot promise that
// (delivery to the other processes is asynchronous), so a listening publisher asks for receipts:
// it looks up which buses listen right now (their connections carry the application_name
// "switchboard-bus <origin>"), and every receiver answers once its subscribers have run. The
// publish settles when all have answered, or after ACK_TIMEOUT_MS (a process that does not
// answer is not waited for again until it answers something). HTTP writes wait for it through
// settle() (http/app.ts).
//
// NOTIFY is fire-and-forget: a process whose listening connection drops misses what was sent
// meanwhile. After a reconnect every subscriber is therefore called with RESYNC ("*"): whatever it
// remembers may be stale and it starts over (caches clear, sessions re-check their keys).
// DATABASE_URL must reach PostgreSQL with session semantics (no PgBouncer in transaction mode),
// or LISTEN never hears anything.

export const CHANNEL = "switchboard";
const APP_NAME_PREFIX = "switchboard-bus ";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a bigger message travels as RESYNC. */
const MAX_NOTIFY_BYTES = 7900;
const ACK_TIMEOUT_MS = 2_000;
const PING_MS = 15_000;
const PING_TIMEOUT_MS = 5_000;

export interface PgBusOptions {
  log?: Logger;
  /** the listening connection, which must carry this application_name (default: a pg.Client with the pool's settings) */
  connect?: (applicationName: string) => pg.Client;
  /** the longest wait between two reconnection attempts */
  maxBackoffMs?: number;
  /** how long a publish waits for the other processes' receipts */
  ackTimeoutMs?: number;
}

/** What travels on the channel: a message (with `id` when its sender wants receipts), or a receipt (`ack`, addressed `to` a sender). */
interface Wire {
  origin: string;
  topic?: string;
  payload?: string;
  id?: number;
  ack?: number;
  to?: string;
}

/**
 * The platform's bus. `listen()` opens the listening connection (a bus that never listens can
 * still publish, without receipts: the CLI does that); it is reopened with back-off whenever it
 * drops.
 */
export class PgBus implements Bus {
  /** tells this process's messages apart: PostgreSQL echoes them back, and receipts are addressed to it */
  readonly origin = randomBytes(8).toString("hex");
  private readonly subs: Subscribers;
  private readonly log?: Logger;
  private readonly maxBackoffMs: number;
  private readonly ackTimeoutMs: number;
  private readonly newClient: (applicationName: string) => pg.Client;
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private backoffMs = 0;
  private retry: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;
  private seq = 0;
  /** publishes whose receipts are awaited: message id -> origins yet to answer */
  private readonly waiting = new Map<number, { pending: Set<string>; done: () => void }>();
  /** processes that let a receipt time out: not waited for again until they answer something */
  private readonly silent = new Set<string>();
  private readonly sending = new Set<Promise<void>>();
  private readonly scope = new AsyncLocalStorage<Set<Promise<void>>>();
  /** writes settling now (the scope is enabled while there are any) */
  private settling = 0;

  constructor(
    private readonly pool: pg.Pool,
    o: PgBusOptions = {},
  ) {
    this.log = o.log;
    this.subs = new Subscribers(o.log);
    this.maxBackoffMs = o.maxBackoffMs ?? 5_000;
    this.ackTimeoutMs = o.ackTimeoutMs ?? ACK_TIMEOUT_MS;
    // keepAlive: a connection the network silently dropped is noticed (the ping notices sooner).
    this.newClient = o.connect ?? ((name) => new pg.Client({ ...this.pool.options, application_name: name, keepAlive: true }));
  }

  /** Whether the listening connection is up right now (for health reports and tests). */
  get connected(): boolean {
    return this.listening;
  }

  /** Opens the listening connection; if that fails, says so and keeps trying in the background. */
  async listen(): Promise<void> {
    if (this.closed || this.client) return;
    await this.connect(false);
  }

  publish(topic: string, payload = ""): Promise<void> {
    this.subs.deliver(topic, payload);
    if (this.closed) return Promise.resolve();
    const sent = this.send(topic, payload).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
    this.scope.getStore()?.add(sent);
    return sent;
  }

  subscribe(topic: string, cb: (payload: string) => void): () => void {
    return this.subs.add(topic, cb);
  }

  async settle<T>(fn: () => Promise<T>): Promise<T> {
    const published = new Set<Promise<void>>();
    this.settling++;
    try {
      return await this.scope.run(published, fn);
    } finally {
      try {
        await Promise.all(published);
      } finally {
        // On Node 20 an enabled AsyncLocalStorage follows every promise of the process through
        // async hooks: once a write had settled, every page cost ~12% more CPU. It is enabled
        // only while a write is settling.
        if (--this.settling === 0) this.scope.disable();
      }
    }
  }

  /** Stops listening; messages still being sent are sent first. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    await Promise.all([...this.sending]);
    const c = this.client;
    this.client = undefined;
    this.listening = false;
    await c?.end().catch(() => {});
  }

  /** Sends the message; with a listening connection, waits for the other listeners' receipts. */
  private async send(topic: string, payload: string): Promise<void> {
    try {
      const id = this.listening ? ++this.seq : undefined;
      let wire: Wire = { origin: this.origin, topic, payload, id };
      if (Buffer.byteLength(JSON.stringify(wire)) > MAX_NOTIFY_BYTES) wire = { ...wire, payload: RESYNC };
      const receipts = id === undefined ? undefined : await this.receipts(id);
      try {
        await this.pool.query("select pg_notify($1, $2)", [CHANNEL, JSON.stringify(wire)]);
      } catch (e) {
        receipts?.cancel();
        throw e;
      }
      await receipts?.all;
    } catch (e) {
      this.log?.warn({ err: e, topic }, "could not tell the other processes (they catch up when their caches expire)");
    }
  }

  /** Expects a receipt for message `id` from every other bus listening right now (registered before the message goes out). */
  private async receipts(id: number): Promise<{ all: Promise<void>; cancel: () => void } | undefined> {
    const r = await this.pool.query<{ name: string }>(
      "select application_name as name from pg_stat_activity where datname = current_database() and application_name like $1",
      [`${APP_NAME_PREFIX}%`],
    );
    const pending = new Set(
      r.rows.map((x) => x.name.slice(APP_NAME_PREFIX.length)).filter((o) => o !== this.origin && !this.silent.has(o)),
    );
    if (pending.size === 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const all = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve();
      };
      this.waiting.set(id, { pending, done });
      timer = setTimeout(() => {
        for (const o of pending) this.silent.add(o);
        this.log?.warn({ processes: [...pending] }, "bus: some processes did not confirm a message in time");
        done();
      }, this.ackTimeoutMs);
      timer.unref();
    });
    return { all, cancel: () => this.waiting.get(id)?.done() };
  }

  private async connect(again: boolean): Promise<void> {
    const c = this.newClient(`${APP_NAME_PREFIX}${this.origin}`);
    this.client = c;
    let lost = false;
    const drop = (e?: unknown) => {
      if (lost) return;
      lost = true;
      this.dropped(c, e);
    };
    c.on("error", drop);
    c.on("end", () => drop());
    c.on("notification", (n) => {
      if (n.channel === CHANNEL && n.payload) this.received(c, n.payload);
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANNEL}`);
    } catch (e) {
      drop(e);
      void c.end().catch(() => {});
      return;
    }
    if (this.closed || lost) return;
    this.listening = true;
    this.backoffMs = 0;
    this.ping = setInterval(() => this.checkAlive(c), PING_MS).unref();
    if (again) {
      this.log?.info("bus listening again: every subscriber starts over");
      this.subs.resync();
    }
  }

  private dropped(c: pg.Client, e?: unknown) {
    if (this.client !== c) return;
    this.client = undefined;
    this.listening = false;
    clearInterval(this.ping);
    if (this.closed) return;
    this.backoffMs = Math.min(this.maxBackoffMs, Math.max(100, this.backoffMs * 2));
    this.log?.warn({ err: e, retryInMs: this.backoffMs }, "bus connection lost: reconnecting");
    this.retry = setTimeout(() => void this.connect(true), this.backoffMs);
    this.retry.unref();
  }

  /** A connection that stops answering (a network partition without a reset) is replaced. */
  private checkAlive(c: pg.Client) {
    const timeout = setTimeout(() => {
      this.dropped(c, new Error("bus connection did not answer a ping"));
      void c.end().catch(() => {});
    }, PING_TIMEOUT_MS);
    c.query("select 1").then(
      () => clearTimeout(timeout),
      () => clearTimeout(timeout),
    );
  }

  private received(c: pg.Client, text: string) {
    let m: Partial<Wire>;
    try {
      m = JSON.parse(text) as Partial<Wire>;
    } catch {
      return;
    }
    if (typeof m.origin !== "string" || m.origin === this.origin) return;
    this.silent.delete(m.origin);
    if (typeof m.ack === "number") {
      if (m.to !== this.origin) return;
      const w = this.waiting.get(m.ack);
      if (w && w.pending.delete(m.origin) && w.pending.size === 0) w.done();
      return;
    }
    if (typeof m.topic !== "string") return;
    this.subs.deliver(m.topic, typeof m.payload === "string" ? m.payload : RESYNC);
    // The receipt goes out once the subscribers have run, over the connection that heard the message.
    if (typeof m.id === "number") {
      const receipt: Wire = { origin: this.origin, ack: m.id, to: m.origin };
      c.query("select pg_notify($1, $2)", [CHANNEL, JSON.stringify(receipt)]).catch(() => {});
    }
  }
}
