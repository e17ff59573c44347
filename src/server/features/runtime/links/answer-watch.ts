import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { FetchLike } from "../../../net/upstream-fetch.js";

// A server reached over streamable HTTP (a connection's remote server, an image that speaks HTTP)
// answers each POSTed request in that POST's answer: a JSON body or an event stream that carries
// the response. An answer that ends without it (another id, an empty batch, only notifications, a
// 202 to a request, after a grace) leaves nothing to wait for: the SDK's transport would drop it silently and the
// client wait until its own timeout. This watch tells the link at once, and the link answers the
// request with an error, as a server's own would read. An event stream that carried event ids
// may be resumed (the specification's Last-Event-ID): the SDK does so, and it is not called
// unanswered. The legacy HTTP+SSE transport answers on its one stream, so it is not watched.

/** What a request's serialization starts with once `asRequest` shaped it: its id right after `jsonrpc`, its method right after (an answer has none). */
const LEADING_ID = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.){0,256}"|-?\d{1,16}),"method":"/;

/** A request re-made with its id first (and nothing but the four members a request has), so `requestId` can read it cheaply. */
export function asRequest(m: JSONRPCMessage): JSONRPCMessage {
  const r = m as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof r.method !== "string" || (typeof r.id !== "string" && typeof r.id !== "number")) return m;
  const out: Record<string, unknown> = { jsonrpc: "2.0", id: r.id, method: r.method };
  if (r.params !== undefined) out.params = r.params;
  return out as JSONRPCMessage;
}

/** The id of the request a POST body carries (as `asRequest` shaped it), or undefined (a notification, an answer). */
export function requestId(body: unknown): string | number | undefined {
  if (typeof body !== "string") return undefined;
  const m = LEADING_ID.exec(body.slice(0, 300));
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return undefined;
  }
}

/** After what the SDK still does with the answer's last bytes (its parsing runs in promise jobs and stream hops). */
const afterDispatch = (f: () => void) => setImmediate(() => setImmediate(f));

/** Whether SSE text holds a field `id:` with a value at the start of a line (the SDK resumes only from a non-empty one). */
const hasEventId = (text: string) => /(?:^|[\r\n])id: ?[^ \r\n]/.test(text);

/**
 * A 202 to a request breaks the specification (a request's POST answers with JSON or an event
 * stream), but a lenient server may still answer it on its GET stream: it has this long to.
 */
export const ACCEPTED_GRACE_MS = 5000;

/**
 * `fetch` with each POST that carries a request watched: once its answer has ended without
 * answering it, `unanswered(id)` is called (the link answers the request if it still waits).
 * A refusal (an HTTP error) is the transport's to report and is not watched.
 */
export function watchAnswers(fetch: FetchLike, unanswered: (id: string | number) => void, acceptedGraceMs = ACCEPTED_GRACE_MS): FetchLike {
  return async (input, init) => {
    const r = await fetch(input, init);
    if ((init?.method ?? "GET").toUpperCase() !== "POST" || !r.ok) return r;
    const id = requestId(init?.body);
    if (id === undefined) return r;
    if (r.status === 202) {
      setTimeout(() => unanswered(id), acceptedGraceMs).unref();
      return r;
    }
    if (!r.body) {
      afterDispatch(() => unanswered(id));
      return r;
    }
    const events = (r.headers.get("content-type") ?? "").includes("text/event-stream");
    let resumable = false;
    let carry = "";
    const decoder = new TextDecoder("latin1");
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (events && !resumable) {
          const text = carry + decoder.decode(chunk, { stream: true });
          resumable = hasEventId(text);
          carry = text.slice(-8);
        }
        controller.enqueue(chunk);
      },
      flush() {
        if (!resumable) afterDispatch(() => unanswered(id));
      },
    });
    return new Response(r.body.pipeThrough(tap), { status: r.status, statusText: r.statusText, headers: r.headers });
  };
}
