// `npm run dev`: the same server with Vite in middleware mode (hot reload of pages and styles).
import { createServer } from "vite";
import type { ServerBuild } from "react-router";
import { main } from "./main.js";

await main({
  dev: async (httpServer) => {
    const vite = await createServer({ server: { middlewareMode: true, hmr: { server: httpServer } }, appType: "custom" });
    return {
      middleware: (req, res, next) => vite.middlewares(req, res, next),
      pages: () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>,
      close: () => vite.close(),
    };
  },
});
