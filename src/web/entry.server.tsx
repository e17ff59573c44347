import { renderToPipeableStream } from "react-dom/server.bun";
import type { AppLoadContext, EntryContext } from "react-router";
import { ServerRouter } from "react-router";

export const streamTimeout = 5_000;

// The server builds its request handler from this build's React Router (vite.config.ts: the
// production build of it), never from a second copy: its data() and errors are checked by identity.
export { createRequestHandler } from "react-router";

/**
 * Pages are rendered whole and sent as one body with a Content-Length. Loaders have already
 * run when rendering starts and nothing suspends, so streaming would only split the same bytes
 * into many small writes (measured: a fifth of a server page's CPU time went to them). Crawlers
 * and no-JS clients get the complete document either way.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    // Cleared once the page is done: a pending timer kept the whole render (its tree and loader
    // data) alive for seconds after the response, hundreds of them at once under load, for the GC.
    let abort = () => {};
    const timer = setTimeout(() => abort(), streamTimeout + 1000);
    const done = (response: Response) => {
      clearTimeout(timer);
      resolve(response);
    };
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    };
    const render = renderToPipeableStream(<ServerRouter context={routerContext} url={request.url} nonce={nonce} />, {
      nonce,
      onAllReady() {
        // React's Bun build hands its destination strings, which are joined once here: its Node
        // build encodes every chunk into bytes itself (measured: ~15% of a server page's CPU).
        // Nothing else here is Bun's: this is its renderToPipeableStream, the one Node's also has.
        const parts: string[] = [];
        const sink = {
          write(chunk: string) {
            parts.push(chunk);
            return true;
          },
          end() {
            const body = Buffer.from(parts.join(""));
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            responseHeaders.set("Content-Length", String(body.length));
            done(new Response(body, { headers: responseHeaders, status }));
          },
          destroy: fail,
          on: () => sink,
        };
        render.pipe(sink as unknown as NodeJS.WritableStream);
      },
      onShellError(error: unknown) {
        fail(error);
      },
      onError(error: unknown) {
        status = 500;
        console.error(error);
      },
    });
    abort = render.abort;
  });
}
