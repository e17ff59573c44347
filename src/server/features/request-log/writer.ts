import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { CallRecord, GatewayObserver } from "../gateway/observe.js";
import { bucketOf, emptyBuckets } from "./histogram.js";
import { writeBatch, type RequestLogRow, type ToolStatDelta } from "./repo.js";

const HOUR_MS = 3_600_000;
const INT32 = 2 ** 31 - 1;

/**
 * Calls the caller spoiled say nothing about the tool: an unknown tool (-32601), arguments the
 * schema refuses (-32602), a request the gateway refused (-32600: an id already in flight), a
 * session that ended mid-call (-32001), a call the caller cancelled. Counting them either way
 * would let anyone push a popular tool's public error rate or latency where they like.
 */
const CALLER_SPOILED = new Set([-32600, -32601, -32602, -32001]);
export function countsInFigures(r: Pick<CallRecord, "outcome" | "errorCode">): boolean {
  return (
    r.outcome !== "cancelled" &&
    r.outcome !== "rate_limited" &&
    !(r.outcome === "error" && r.errorCode !== undefined && CALLER_SPOILED.has(r.errorCode))
  );
}

/** Of the calls that count, the failures: the tool said isError, or the server (or the gateway on its behalf) answered an error. */
export function countsAsError(r: Pick<CallRecord, "outcome" | "errorCode">): boolean {
  return countsInFigures(r) && (r.outcome === "tool_error" || r.outcome === "error");
}
/** Beyond this many unwritten rows (the database is down or slow), new ones are dropped and counted. */
export const MAX_PENDING = 10_000;

export interface RequestLogWriterOptions {
  db: Db;
  log: Logger;
  flushMs: number;
  /** REQUEST_LOG_RETENTION_DAYS: 0 turns the log off (the tool figures are still kept) */
  retentionDays: number;
  maxPending?: number;
}

/**
 * Told of every answered request (gateway/observe.ts). On the request path it only appends to
 * memory; a timer writes what gathered in one transaction per tick. A failed write is tried once
 * more on the next tick, then dropped with an error line: the log must never hold up requests,
 * nor grow without bound while the database is away.
 */
export class RequestLogWriter implements GatewayObserver {
  private rows: RequestLogRow[] = [];
  private stats = new Map<string, ToolStatDelta>();
  private retry: { rows: RequestLogRow[]; stats: ToolStatDelta[] } | undefined;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxPending: number;
  /** rows dropped because too many were waiting, since start */
  dropped = 0;

  constructor(private readonly o: RequestLogWriterOptions) {
    this.maxPending = o.maxPending ?? MAX_PENDING;
  }

  /** Writes what gathered every flushMs from now on (the platform calls it when it listens). */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.o.flushMs).unref();
  }

  get pending(): number {
    return this.rows.length;
  }

  callDone(r: CallRecord): void {
    if (this.o.retentionDays > 0) {
      if (this.rows.length >= this.maxPending) this.dropped++;
      else
        this.rows.push({
          deploymentId: r.deploymentId,
          at: new Date(r.startedAt),
          clientName: r.client?.name ?? null,
          clientVersion: r.client?.version ?? null,
          method: r.method,
          name: r.name ?? null,
          durationMs: r.durationMs,
          outcome: r.outcome,
          errorCode: r.errorCode ?? null,
          bytesIn: Math.min(r.bytesIn, INT32),
          bytesOut: Math.min(r.bytesOut, INT32),
          transport: r.transport,
          playground: r.playground ?? false,
          wokeMs: r.wokeMs ?? null,
          callerId: r.callerId ?? null,
        });
    }
    // The owner trying their own server in the playground is not use: the figures count clients' calls.
    if (r.method === "tools/call" && r.name && !r.playground && countsInFigures(r)) this.count(r, r.name);
  }

  private count(r: CallRecord, tool: string): void {
    const hour = Math.floor(r.startedAt / HOUR_MS) * HOUR_MS;
    const key = `${r.serverKind}\u0000${r.serverRef}\u0000${tool}\u0000${hour}\u0000${r.userId}`;
    let s = this.stats.get(key);
    if (!s) {
      // Keys are bounded too: a client inventing tool names cannot grow this map without limit.
      if (this.stats.size >= this.maxPending) return void this.dropped++;
      s = {
        kind: r.serverKind,
        ref: r.serverRef,
        tool,
        hour: new Date(hour),
        userId: r.userId,
        calls: 0,
        errors: 0,
        buckets: emptyBuckets(),
      };
      this.stats.set(key, s);
    }
    s.calls++;
    if (countsAsError(r)) s.errors++;
    s.buckets[bucketOf(r.durationMs)]!++;
  }

  /** Writes what gathered so far; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    const again = this.retry;
    this.retry = undefined;
    if (again) await this.attempt(again.rows, again.stats, false);
    if (this.rows.length === 0 && this.stats.size === 0) return;
    const rows = this.rows;
    const stats = [...this.stats.values()];
    this.rows = [];
    this.stats = new Map();
    await this.attempt(rows, stats, true);
  }

  private async attempt(rows: RequestLogRow[], stats: ToolStatDelta[], mayRetry: boolean): Promise<void> {
    try {
      await writeBatch(this.o.db, rows, stats);
    } catch (e) {
      if (mayRetry) this.retry = { rows, stats };
      this.o.log.error(
        { err: e, rows: rows.length, tools: stats.length, retry: mayRetry },
        mayRetry
          ? "could not write the request log; trying once more"
          : "could not write the request log; writing it deployment by deployment",
      );
      if (!mayRetry) await this.piecewise(rows, stats);
    }
  }

  /** The last try: each deployment's rows, and the figures, on their own, so one bad row loses only its own deployment's batch. */
  private async piecewise(rows: RequestLogRow[], stats: ToolStatDelta[]): Promise<void> {
    const groups = new Map<string, RequestLogRow[]>();
    for (const r of rows) {
      const g = groups.get(r.deploymentId);
      if (g) g.push(r);
      else groups.set(r.deploymentId, [r]);
    }
    let lost = 0;
    for (const group of groups.values()) await writeBatch(this.o.db, group, []).catch(() => (lost += group.length));
    await writeBatch(this.o.db, [], stats).catch(() => (lost += stats.length));
    if (lost) this.o.log.error({ lost }, "dropped request log rows or tool figures that could not be written");
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    // The retry, if the last write failed: once more now, since there is no next tick.
    if (this.retry) await this.flush();
  }
}
