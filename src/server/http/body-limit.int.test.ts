import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, type TestApp } from "~support/app.js";

// The API's 1 MB body limit over a real socket (node-server's requests, not test Requests): a GET
// without a body skips the limiter (it has nothing to read), a body announced or streamed without
// end is still cut off.

let t: TestApp;
let port: number;

beforeAll(async () => {
  port = await freePort();
  t = await createTestApp({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.listen();
});
afterAll(async () => {
  await t?.close();
});

/** Sends `head`, then `body` chunks until the server answers; its status line. */
function raw(head: string, chunk: string, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    socket.on("data", (d) => {
      answer += d.toString("latin1");
      if (answer.includes("\r\n")) {
        resolve(answer.split("\r\n")[0]!);
        socket.destroy();
      }
    });
    socket.on("error", (e) => (answer ? undefined : reject(e)));
    socket.on("connect", () => {
      socket.write(head);
      const pump = () => {
        while (sent < max && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return socket.once("drain", pump);
        }
      };
      pump();
    });
  });
}

describe("the API's body limit", () => {
  it("answers a GET without a body as usual", async () => {
    expect(await raw("GET /api/mcp-servers?q=github HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", "", 0)).toContain("200");
  });

  it("refuses a request announcing a 2 MB body with 413", async () => {
    const head = `POST /api/auth/apikeys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`;
    expect(await raw(head, "x".repeat(64 * 1024), 2 * 1024 * 1024)).toContain("413");
  });

  it("cuts off a request streaming a chunked body without end at 1 MB", async () => {
    const head = "POST /api/auth/apikeys HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    const piece = "y".repeat(64 * 1024);
    expect(await raw(head, `${piece.length.toString(16)}\r\n${piece}\r\n`, 8 * 1024 * 1024)).toContain("413");
  });
});

describe("the pages' body limit", () => {
  it("answers a page's GET without a body as usual", async () => {
    expect(await raw("GET /docs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", "", 0)).toContain("200");
  });

  it("refuses a form post to a page that streams a chunked body without end, at 1 MB", async () => {
    const piece = "y".repeat(64 * 1024);
    const chunked = "POST /waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    expect(await raw(chunked, `${piece.length.toString(16)}\r\n${piece}\r\n`, 8 * 1024 * 1024)).toContain("413");
  });

  it("never reads a body sent with a page's GET: the page answers and the next request is served", async () => {
    const announced = `GET /docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`;
    expect(await raw(announced, "x".repeat(64 * 1024), 2 * 1024 * 1024)).toContain("200");
    expect(await raw("GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", "", 0)).toContain("200");
  });
});
