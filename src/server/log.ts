import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(opts: { level: string; pretty: boolean }): Logger {
  return pino({
    level: opts.level,
    redact: { paths: ["req.headers.authorization", "req.headers.cookie", "*.password", "*.secret"], remove: true },
    ...(opts.pretty
      ? { transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss", ignore: "pid,hostname" } } }
      : {}),
  });
}
