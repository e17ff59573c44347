import { createElement as h, Suspense, use } from "react";
import { Writable } from "node:stream";
import * as bun from "react-dom/server.bun";
import * as node from "react-dom/server.node";
import { describe, expect, it } from "vitest";

// entry.server.tsx renders with React's Bun build, which hands its destination strings, on Node.
// These check that it writes the very bytes React's Node build writes, suspense included.

function page() {
  const later = Promise.resolve("loaded & <escaped>");
  function Late() {
    return h("p", { className: "late" }, use(later));
  }
  return h(
    "html",
    null,
    h("body", null, h("main", { id: "main" }, h("h1", null, 'Zoë\'s "server"'), h(Suspense, { fallback: h("p", null, "…") }, h(Late)))),
  );
}

const viaNode = () =>
  new Promise<string>((resolve, reject) => {
    const r = node.renderToPipeableStream(page(), {
      onAllReady() {
        const chunks: Buffer[] = [];
        r.pipe(
          new Writable({
            write(c: Buffer, _e, cb) {
              chunks.push(c);
              cb();
            },
            final(cb) {
              resolve(Buffer.concat(chunks).toString());
              cb();
            },
          }),
        );
      },
      onShellError: reject,
    });
  });

const viaBun = () =>
  new Promise<string>((resolve, reject) => {
    const r = bun.renderToPipeableStream(page(), {
      onAllReady() {
        const parts: string[] = [];
        const sink = { write: (c: string) => (parts.push(c), true), end: () => resolve(parts.join("")), on: () => sink };
        r.pipe(sink as unknown as NodeJS.WritableStream);
      },
      onShellError: reject,
    });
  });

describe("the server renderer", () => {
  it("writes what React's Node build writes", async () => {
    const [a, b] = [await viaNode(), await viaBun()];
    expect(b).toBe(a);
    expect(b).toContain("loaded &amp; &lt;escaped&gt;");
    expect(b).toContain("Zoë&#x27;s &quot;server&quot;");
  });
});
