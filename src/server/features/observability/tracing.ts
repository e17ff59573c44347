import {
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Tracer,
} from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../log.js";
import type { CallRecord, GatewayObserver } from "../gateway/observe.js";
import { mcpMethodLabel } from "./labels.js";
import { cleanTracestate, parseTraceparent } from "./trace-context.js";

// OpenTelemetry traces of gateway calls, sent as OTLP/HTTP JSON to {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces.
// Each answered request becomes a span from the moment it reached the gateway to its answer, with
// a child span for the server's part (from forwarding to the answer). The spans are built after
// the fact from the gateway's record (observe.ts), so the hot path only queues the record; a
// client's W3C traceparent (from _meta, else the header) makes the span part of the client's trace.
// The provider is this platform's own, never registered globally.

/** Records waiting to become spans; beyond this (an exporter far behind) new ones are dropped. */
const MAX_QUEUED = 4096;

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://collector:4318 */
  endpoint: string;
  /** OTEL_SERVICE_NAME */
  serviceName: string;
  log: Logger;
  /** how long spans wait to be sent in a batch (default 5 s, or OTEL_BSP_SCHEDULE_DELAY) */
  scheduledDelayMs?: number;
}

export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private queue: CallRecord[] = [];
  private scheduled = false;
  private dropped = 0;

  constructor(private readonly o: TracingOptions) {
    const exporter = new OTLPTraceExporter({ url: `${o.endpoint.replace(/\/+$/, "")}/v1/traces` });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": o.serviceName }),
      spanProcessors: [
        new BatchSpanProcessor(exporter, o.scheduledDelayMs === undefined ? {} : { scheduledDelayMillis: o.scheduledDelayMs }),
      ],
    });
    this.tracer = this.provider.getTracer("switchboard-gateway");
  }

  readonly observer: GatewayObserver = {
    callDone: (r: CallRecord) => {
      if (this.queue.length >= MAX_QUEUED) {
        this.dropped++;
        return;
      }
      this.queue.push(r);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.drain());
    },
  };

  private drain() {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const r of batch) {
      try {
        this.record(r);
      } catch (e) {
        this.o.log.warn({ err: e }, "tracing: could not record a span");
      }
    }
    if (this.dropped > 0) {
      this.o.log.warn({ spans: this.dropped }, "tracing: spans dropped (the collector is not keeping up)");
      this.dropped = 0;
    }
  }

  /** The span of one gateway call, and its child for the server's part. */
  private record(r: CallRecord) {
    const method = mcpMethodLabel(r.method);
    const end = r.startedAt + r.durationMs;
    const span = this.tracer.startSpan(
      `mcp ${method}`,
      { kind: SpanKind.SERVER, startTime: r.startedAt, attributes: attributesOf(r) },
      parentOf(r),
    );
    if (r.outcome === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: `JSON-RPC error ${r.errorCode ?? ""}`.trim() });
    if (r.forwardedAt !== undefined && span.isRecording()) {
      const server = this.tracer.startSpan(
        `server ${method}`,
        {
          kind: SpanKind.CLIENT,
          startTime: Math.min(r.forwardedAt, end),
          attributes: { "mcp.method": r.method, "switchboard.deployment.id": r.deploymentId },
        },
        trace.setSpan(ROOT_CONTEXT, span),
      );
      server.end(end);
    }
    span.end(end);
  }

  /** Sends what is queued and stops the exporter (platform close). */
  async close(): Promise<void> {
    this.drain();
    await this.provider.shutdown().catch((e: unknown) => this.o.log.warn({ err: e }, "tracing: could not send the last spans"));
  }
}

/** The client's trace, when it sent a valid traceparent; else a new trace. */
function parentOf(r: CallRecord): Context {
  const p = parseTraceparent(r.traceparent);
  if (!p) return ROOT_CONTEXT;
  const state = cleanTracestate(r.tracestate);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: p.traceId,
    spanId: p.spanId,
    traceFlags: p.traceFlags,
    isRemote: true,
    traceState: state ? createTraceState(state) : undefined,
  });
}

function attributesOf(r: CallRecord): Attributes {
  const a: Attributes = {
    "mcp.method": r.method,
    "mcp.transport": r.transport,
    "switchboard.deployment.id": r.deploymentId,
    "switchboard.outcome": r.outcome,
    "mcp.request.bytes": r.bytesIn,
    "mcp.response.bytes": r.bytesOut,
  };
  if (r.name !== undefined) {
    if (r.method === "tools/call") a["mcp.tool.name"] = r.name;
    else if (r.method === "prompts/get") a["mcp.prompt.name"] = r.name;
    else a["mcp.resource.uri"] = r.name;
  }
  if (r.errorCode !== undefined) a["rpc.jsonrpc.error_code"] = r.errorCode;
  if (r.client) {
    a["mcp.client.name"] = r.client.name;
    a["mcp.client.version"] = r.client.version;
  }
  return a;
}
