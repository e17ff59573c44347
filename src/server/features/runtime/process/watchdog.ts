import type { ChildProcess } from "node:child_process";
import type { Logger } from "../../../log.js";
import { hostSpawn } from "../sandbox/host-process.js";

// A runner's dead-man's switch. It is a separate, tiny process (bash, no Node) that knows the
// process groups of the runner's hosted servers. The runner ticks it after every heartbeat that
// reached the database; if the ticks stop for `timeoutMs` (the runner is paused, hung or cut off
// from the database) or its pipe closes (the runner died, even by kill -9), it kills every group
// and exits. It runs while the runner itself cannot, which is what makes the lease hold: the
// deployments of a runner that stopped heartbeating are moved only after the lease, and by then
// this has already ended their old processes.

// The deadline counts from the last tick only: other lines (a group added or gone) do not move it.
const SCRIPT = `
set -u
limit="$1"
declare -A groups=()
kill_all() { for g in "\${!groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done; }
last=\${EPOCHREALTIME/[.,]/}
while :; do
  n=\${EPOCHREALTIME/[.,]/}
  left=$(( last + limit - n ))
  if (( left <= 0 )); then kill_all; exit 0; fi
  printf -v frac '%06d' $(( left % 1000000 ))
  if IFS= read -r -t "$(( left / 1000000 )).$frac" line; then
    case "$line" in
      tick) last=\${EPOCHREALTIME/[.,]/} ;;
      add\\ *) g="\${line#add }"; [[ "$g" =~ ^[0-9]+$ ]] && groups[$g]=1 ;;
      del\\ *) g="\${line#del }"; [[ "$g" =~ ^[0-9]+$ ]] && unset "groups[$g]" ;;
      stop) exit 0 ;;
    esac
  else
    # The deadline passed, or the runner's end of the pipe closed (it died).
    kill_all
    exit 0
  fi
done
`;

export class Watchdog {
  private proc?: ChildProcess;
  private readonly groups = new Set<number>();
  private closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  /** Starts the switch (again, after it fired): it watches every group it was told of. */
  arm(): void {
    if (this.closed || (this.proc && this.proc.exitCode === null && !this.proc.killed)) return;
    // HOST_ENV: bash reads BASH_ENV and more from its environment; it gets only PATH.
    const proc = hostSpawn("bash", ["-c", SCRIPT, "watchdog", String(Math.round(this.timeoutMs * 1000))], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    proc.stdin!.on("error", () => {});
    proc.on("error", (e) => this.log.error({ err: e }, "the runner's watchdog could not start"));
    proc.once("exit", () => {
      if (this.proc === proc) this.proc = undefined;
      if (!this.closed) this.log.warn("the runner's watchdog fired: heartbeats stopped, hosted servers were killed");
    });
    this.proc = proc;
    for (const g of this.groups) this.write(`add ${g}`);
  }

  private write(line: string) {
    if (this.proc?.stdin?.writable) this.proc.stdin.write(`${line}\n`);
  }

  /** A heartbeat reached the database. */
  tick(): void {
    this.write("tick");
  }

  add(pgid: number): void {
    this.groups.add(pgid);
    this.write(`add ${pgid}`);
  }

  remove(pgid: number): void {
    this.groups.delete(pgid);
    this.write(`del ${pgid}`);
  }

  get armed(): boolean {
    return this.proc !== undefined;
  }

  /** A clean stop: the switch ends without killing anything. */
  close(): void {
    this.closed = true;
    this.write("stop");
    this.proc?.stdin?.end();
    this.proc = undefined;
  }
}
