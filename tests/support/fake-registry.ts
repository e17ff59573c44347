// A stand-in for the official MCP Registry's v0.1 list endpoint, on a port of its own: pages with
// cursors, `updated_since`, each item's `_meta` status, and hostile answers on demand.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface UpstreamServer {
  name: string;
  version?: string;
  description?: string;
  status?: "active" | "deprecated" | "deleted";
  updatedAt: string;
  isLatest?: boolean;
  /** sent as is instead of a server.json built from the fields above */
  raw?: unknown;
  packages?: unknown[];
}

export type Hostile = "none" | "huge" | "crowded" | "loop" | "nonce" | "slow" | "trickle" | "not-json" | "error";

export interface FakeRegistry {
  url: string;
  servers: UpstreamServer[];
  /** what each request asked for */
  requests: URLSearchParams[];
  hostile: Hostile;
  pageSize: number;
  /** every answer waits this long first (a run then holds its claim while another tries) */
  delayMs: number;
  close(): Promise<void>;
}

function item(s: UpstreamServer) {
  return {
    server: s.raw ?? {
      $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
      name: s.name,
      description: s.description ?? `${s.name} server`,
      version: s.version ?? "1.0.0",
      packages: s.packages ?? [
        { registryType: "npm", identifier: `${s.name.split("/")[1]}-mcp`, version: s.version ?? "1.0.0", transport: { type: "stdio" } },
      ],
    },
    _meta: {
      "io.modelcontextprotocol.registry/official": {
        status: s.status ?? "active",
        publishedAt: "2026-01-01T00:00:00Z",
        updatedAt: s.updatedAt,
        isLatest: s.isLatest ?? true,
      },
    },
  };
}

export async function startFakeRegistry(): Promise<FakeRegistry> {
  const state: Omit<FakeRegistry, "url" | "close"> = { servers: [], requests: [], hostile: "none", pageSize: 2, delayMs: 0 };
  const server = http.createServer((req, res) => {
    if (state.delayMs > 0) {
      const delay = state.delayMs;
      setTimeout(() => answer(req, res), delay).unref();
      return;
    }
    answer(req, res);
  });
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url ?? "/", "http://x");
    if (u.pathname !== "/v0.1/servers") {
      res.writeHead(404).end();
      return;
    }
    state.requests.push(u.searchParams);
    const since = u.searchParams.get("updated_since");
    const from = Number(u.searchParams.get("cursor") ?? 0);
    const matching = state.servers
      .filter((s) => !since || Date.parse(s.updatedAt) > Date.parse(since))
      .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.name.localeCompare(b.name));
    const page = matching.slice(from, from + state.pageSize);
    const next = from + state.pageSize < matching.length ? String(from + state.pageSize) : undefined;
    const body = { servers: page.map(item), metadata: { count: page.length, ...(next ? { nextCursor: next } : {}) } };
    switch (state.hostile) {
      case "error":
        res.writeHead(500).end("upstream trouble");
        return;
      case "not-json":
        res.writeHead(200, { "content-type": "application/json" }).end("<html>maintenance</html>");
        return;
      case "loop":
        // Always the first page's cursor again.
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ ...body, metadata: { count: page.length, nextCursor: "0" } }));
        return;
      case "crowded": {
        // Far more entries than the page size asked for.
        const crowd = Array.from({ length: 150 }, (_, i) => item({ name: `io.github.crowd/c${i}`, updatedAt: "2026-11-01T00:00:00Z" }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ servers: crowd, metadata: { count: 150 } }));
        return;
      }
      case "nonce": {
        // The first page again and again, each time under a new cursor.
        const first = matching.slice(0, state.pageSize).map(item);
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ servers: first, metadata: { count: first.length, nextCursor: `n${Math.random()}` } }));
        return;
      }
      case "trickle": {
        // Headers at once, then the body a byte at a time, never finished.
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{");
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 100);
        res.on("close", () => clearInterval(drip));
        return;
      }
      case "slow":
        setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)), 3000).unref();
        return;
      case "huge": {
        // 50 MB of JSON, without a length up front, written as fast as it is taken.
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(64 * 1024, " ");
        let left = (50 * 1024 * 1024) / chunk.length;
        res.write('{"servers":[');
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            left--;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          if (!res.destroyed) res.end("]}");
        };
        res.on("close", () => (left = 0));
        pump();
        return;
      }
      default:
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v0.1/servers`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
