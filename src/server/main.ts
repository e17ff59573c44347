// Start-up: config -> the platform (database, runtime, services, HTTP, gateway) -> listening.
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { createLogger } from "./log.js";
import { projectRoot } from "./paths.js";
import { createPlatform } from "./platform.js";

export interface Running {
  config: Config;
  url: string;
  stop(): Promise<void>;
}

/** Dev mode puts Vite's middleware in front of the app and loads pages through Vite. */
export interface DevServer {
  middleware: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
  pages: () => Promise<ServerBuild>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  dev?: (server: http.Server) => Promise<DevServer>;
}

export async function start(opts: StartOptions = {}): Promise<Running> {
  const config = loadConfig(opts.env);
  const log = createLogger({ level: config.LOG_LEVEL, pretty: config.NODE_ENV !== "production" && process.stdout.isTTY });
  const server = http.createServer();
  const dev = opts.dev ? await opts.dev(server) : undefined;
  const buildFile = path.join(projectRoot, "build/server/index.js");
  let pages = dev?.pages;
  if (!pages) {
    const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild;
    pages = async () => build;
  }
  const platform = await createPlatform({ config, log, pages, devMiddleware: dev?.middleware });
  let recovered: number;
  try {
    ({ recovered } = await platform.listen(server, config.PORT, config.HOST));
  } catch (e) {
    await platform.close();
    await dev?.close();
    throw (e as NodeJS.ErrnoException).code === "EADDRINUSE" ? new Error(`Port ${config.PORT} is already in use: stop the other process or set PORT`) : e;
  }
  const url = `http://localhost:${config.PORT}`;
  log.info(`${config.SITE_NAME} is listening on ${url} (public URL ${config.PUBLIC_URL})`);
  if (recovered) log.info({ deployments: recovered }, "restarting deployments that were running");

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down");
      await platform.close();
      await dev?.close();
    })());
  return { config, url, stop };
}

export async function main(opts: Parameters<typeof start>[0] = {}): Promise<void> {
  let running: Running;
  try {
    running = await start(opts);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
    } else {
      console.error("Start-up failed:", e instanceof Error ? e.message : e);
    }
    process.exit(1);
  }
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`${sig} again: exiting now`);
      process.exit(130);
    }
    running.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error("Shutdown failed:", e);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

