import type { ServerResponse } from "node:http";
import type { Outlet } from "../sessions/mux-session.js";
import { serialize, type Msg } from "../protocol.js";
import { sendJson } from "./http.js";
import type { EventStream } from "./sse.js";
import type { Session } from "../sessions/session.js";

// The two outlets of a client request: where the server's answer (and whatever it sends for the
// request before the answer) goes back to the client.

/**
 * A Streamable HTTP POST's answer: a single response goes back as application/json; an SSE stream
 * is opened only when the server sends something else first (progress, logs, a sampling request).
 */
export class HttpReply implements Outlet {
  private stream?: EventStream;
  private finished = false;
  private bytes = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly session: Session,
    /** the answer as sent (undefined: the client cancelled), and the bytes sent for the request (its answer and what came before it) */
    private readonly onDone: (msg: Msg | undefined, bytes: number) => void,
  ) {}

  push(msg: Msg, final: boolean): void {
    if (this.finished) return;
    if (!this.stream) {
      if (final) {
        this.finished = true;
        // An answer always serializes (at worst to an error saying it was too deep).
        const { text: body, sent } = serialize(msg)!;
        const length = Buffer.byteLength(body);
        this.onDone(sent, length);
        if (this.res.destroyed) return;
        sendJson(this.res, 200, body);
        return;
      }
      this.stream = this.session.openStream(this.res);
    }
    const sent = this.stream.send(msg);
    this.bytes += sent?.bytes ?? 0;
    if (final) {
      this.finished = true;
      this.onDone(sent?.msg ?? msg, this.bytes);
      this.stream.end();
    }
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(undefined, this.bytes);
    if (this.stream) this.stream.end();
    else if (!this.res.destroyed) {
      this.res.writeHead(202);
      this.res.end();
    }
  }
}

/** The legacy HTTP+SSE transport: every message of the session goes down its one stream. */
export class LegacyReply implements Outlet {
  private bytes = 0;
  private finished = false;

  constructor(
    private readonly session: Session,
    private readonly onDone: (msg: Msg | undefined, bytes: number) => void,
  ) {}

  push(msg: Msg, final: boolean): void {
    if (this.finished) return;
    const sent = this.session.standalone?.send(msg);
    this.bytes += sent?.bytes ?? 0;
    if (!final) return;
    this.finished = true;
    this.onDone(sent?.msg ?? msg, this.bytes);
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(undefined, this.bytes);
  }
}
