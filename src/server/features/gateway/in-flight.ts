import type { IncomingMessage, ServerResponse } from "node:http";

// Bytes in flight (docs/gateway.md#bytes-in-flight): what one deployment's requests, and one
// credential's, make the platform hold at once, from the moment their headers arrive until they
// are answered (the body as it is read, parsed and written to the server; the request while the
// server works on it). The body limit bounds one request; this bounds how many a client can pile
// up: thirty 4 MB posts to a server that stopped reading no longer cost the platform 250 MB.
//
// A request is admitted when its declared size (Content-Length) fits under both budgets, or when
// nothing else is in flight under one that it would pass (so a message of any size the body limit
// allows always goes, one at a time). Otherwise it is refused before a byte of its body is read:
// 503 when the deployment's budget is full, 429 when the credential's is, both with Retry-After.
// A body that declares no size is counted as it arrives and refused once it no longer fits.

export type InFlightScope = "deployment" | "credential";

export interface BodyBudget {
  /** `n` more bytes of a body that declared no size arrived: the scope that has no room for them, or null */
  grow(n: number): InFlightScope | null;
  /** GATEWAY_INFLIGHT_BYTES, for the refusal's words */
  readonly capBytes: number;
  /** The request was refused while its body arrived: what it held is free at once, whatever its client still sends. */
  end(): void;
}

export class InFlightTicket implements BodyBudget {
  private bytes = 0;
  private holders = 1;

  constructor(
    private readonly owner: InFlight,
    private readonly deploymentId: string,
    private readonly credential: string,
  ) {}

  /** Takes `n` bytes if they fit (or nothing else is in flight where they would not); the full scope otherwise. */
  take(n: number): InFlightScope | null {
    const full = this.owner.fullFor(this.deploymentId, this.credential, n, this.bytes);
    if (full) return full;
    this.bytes += n;
    this.owner.add(this.deploymentId, this.credential, n);
    return null;
  }

  grow(n: number): InFlightScope | null {
    return this.holders > 0 ? this.take(n) : null;
  }

  get capBytes(): number {
    return this.owner.capBytes;
  }

  /** One more holder: the request stays in flight until every holder has let go (a legacy POST's answer comes later, on its stream). */
  hold(): () => void {
    this.holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  end(): void {
    if (this.holders === 0) return;
    this.holders = 0;
    this.owner.add(this.deploymentId, this.credential, -this.bytes);
    this.bytes = 0;
  }

  /** The response ended (or its client left): this holder lets go. */
  release(): void {
    if (this.holders === 0 || --this.holders > 0) return;
    this.owner.add(this.deploymentId, this.credential, -this.bytes);
    this.bytes = 0;
  }
}

export class InFlight {
  private readonly byDeployment = new Map<string, number>();
  private readonly byCredential = new Map<string, number>();
  private readonly tickets = new WeakMap<IncomingMessage, InFlightTicket>();

  constructor(readonly capBytes: number) {}

  /** A ticket holding `declared` bytes for `req`, or the scope whose budget is full (nothing held then). */
  admit(req: IncomingMessage, deploymentId: string, credential: string, declared: number): InFlightTicket | InFlightScope {
    const ticket = new InFlightTicket(this, deploymentId, credential);
    const full = ticket.take(declared);
    if (full) return full;
    this.tickets.set(req, ticket);
    return ticket;
  }

  /**
   * A POST admitted by its declared size (at most the body limit, plus one byte), its ticket let go
   * when its response ends; or the scope whose budget is full (nothing held, the body unread).
   */
  admitPost(
    req: IncomingMessage,
    res: ServerResponse,
    deploymentId: string,
    credential: string,
    maxBodyBytes: number,
  ): InFlightScope | null {
    const declared = Number(req.headers["content-length"]);
    const size = Number.isFinite(declared) && declared > 0 ? Math.min(declared, maxBodyBytes + 1) : 0;
    const ticket = this.admit(req, deploymentId, credential, size);
    if (typeof ticket === "string") return ticket;
    res.once("close", () => ticket.release());
    return null;
  }

  /** `done` (a request's answer), the request held in flight until it is called (a legacy POST's answer comes after its 202). */
  untilAnswered<A extends unknown[]>(req: IncomingMessage, done: (...args: A) => void): (...args: A) => void {
    const release = this.tickets.get(req)?.hold();
    if (!release) return done;
    return (...args: A) => {
      release();
      done(...args);
    };
  }

  /** The ticket of an admitted request (transports count a body without a declared size against it; answers release it). */
  of(req: IncomingMessage): InFlightTicket | undefined {
    return this.tickets.get(req);
  }

  /** Bytes in flight now, for a deployment (metrics, tests). */
  held(deploymentId: string): number {
    return this.byDeployment.get(deploymentId) ?? 0;
  }

  /** @internal the scope `n` more bytes would overfill (a ticket already holding `mine` there counts as in flight) */
  fullFor(deploymentId: string, credential: string, n: number, mine: number): InFlightScope | null {
    const over = (map: Map<string, number>, key: string) => {
      const now = map.get(key) ?? 0;
      return now + n > this.capBytes && now - mine > 0;
    };
    if (over(this.byDeployment, deploymentId)) return "deployment";
    if (over(this.byCredential, credential)) return "credential";
    return null;
  }

  /** @internal */
  add(deploymentId: string, credential: string, n: number): void {
    for (const [map, key] of [
      [this.byDeployment, deploymentId],
      [this.byCredential, credential],
    ] as const) {
      const next = (map.get(key) ?? 0) + n;
      if (next <= 0) map.delete(key);
      else map.set(key, next);
    }
  }
}
