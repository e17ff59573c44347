// fetch for a client that must reach a custom domain this machine serves: requests to `hostname`
// go to 127.0.0.1 (its port as the URL says), with the URL's own Host header, as DNS pointing the
// domain at this machine would have them. Everything else is plain fetch.
import http from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

export function fetchVia(hostname: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.hostname !== hostname) return fetch(request);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = { host: url.host };
    request.headers.forEach((v, k) => (headers[k] = v));
    if (body) headers["content-length"] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port: url.port || 80, method: request.method, path: `${url.pathname}${url.search}`, headers },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 304 || request.method === "HEAD";
          if (empty) res.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(res) as unknown as NodeReadableStream as unknown as ReadableStream), {
              status,
              headers: h,
            }),
          );
        },
      );
      request.signal.addEventListener("abort", () => req.destroy(new Error("aborted")));
      req.on("error", reject);
      req.end(body);
    });
  };
}
