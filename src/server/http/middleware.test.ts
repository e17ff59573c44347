import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createLogger } from "../log.js";
import { requestContext, setAnswerHeader, type AppEnv } from "./middleware.js";

const log = createLogger({ level: "silent", pretty: false });

describe("headers set on a finished answer", () => {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(log));
  app.use("/cached/*", async (c, next) => {
    await next();
    setAnswerHeader(c, "Cache-Control", "public, max-age=60");
  });
  app.get("/json", (c) => c.json({ ok: true }));
  app.get("/cached/text", (c) => c.text("kept"));
  // Response.redirect's headers are immutable, like a response fetched from another server.
  app.get("/immutable", () => Response.redirect("http://127.0.0.1/elsewhere", 302));

  it("carry the request id on an answer the handler made, its body and status untouched", async () => {
    const r = await app.request("/json", { headers: { "x-request-id": "abcdefgh-1234" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("abcdefgh-1234");
    expect(await r.json()).toEqual({ ok: true });
  });

  it("stack: a later middleware's header joins the earlier one's", async () => {
    const r = await app.request("/cached/text");
    expect(r.headers.get("cache-control")).toBe("public, max-age=60");
    expect(r.headers.get("x-request-id")).toMatch(/^[\w-]{8,64}$/);
    expect(await r.text()).toBe("kept");
  });

  it("reach an answer whose own headers cannot change (it is rebuilt around its body)", async () => {
    const r = await app.request("/immutable");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("http://127.0.0.1/elsewhere");
    expect(r.headers.get("x-request-id")).toMatch(/^[\w-]{8,64}$/);
  });

  it("refuse an incoming request id that is not 8 to 64 word characters, and make one instead", async () => {
    const r = await app.request("/json", { headers: { "x-request-id": "a=b" } });
    expect(r.headers.get("x-request-id")).not.toBe("a=b");
    expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
