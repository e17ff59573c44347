import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLONE_NAMESPACE_FLAGS, compileSeccomp, deniedSyscalls, evaluateSeccomp, MAX_KNOWN_SYSCALL } from "./seccomp.js";

const x64 = compileSeccomp("x64");
const arm = compileSeccomp("arm64");
const EPERM = { action: "errno", errno: 1 };

describe("the seccomp filter", () => {
  it.each([
    "modify_ldt",
    "mount",
    "umount2",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "userfaultfd",
    "kexec_load",
    "init_module",
    "finit_module",
    "ptrace",
    "process_vm_readv",
    "unshare",
    "setns",
    "io_uring_setup",
    "open_by_handle_at",
    "pivot_root",
    "move_mount",
    "fsopen",
  ])("refuses %s (on both architectures where it exists)", (name) => {
    expect(evaluateSeccomp(x64, { arch: "x64", nr: deniedSyscalls("x64")[name]! })).toEqual(EPERM);
    const armNr = deniedSyscalls("arm64")[name];
    if (armNr !== undefined || name !== "modify_ldt") expect(evaluateSeccomp(arm, { arch: "arm64", nr: armNr! })).toEqual(EPERM); // modify_ldt is x86 only
  });

  it("allows what a Node.js server does: read, write, openat, mmap, epoll, futex, execve, plain clone (threads, fork)", () => {
    for (const nr of [0, 1, 257, 9, 232, 233, 202, 59, 60, 231, 435 - 1])
      expect(evaluateSeccomp(x64, { arch: "x64", nr }).action).toBe("allow");
    // clone with thread flags (CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|...) and fork's SIGCHLD
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 56, args: [0x3d0f00] }).action).toBe("allow");
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 56, args: [17] }).action).toBe("allow");
  });

  it("refuses clone into any new namespace, and answers clone3 with ENOSYS so libc falls back to clone", () => {
    for (const flag of [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]) {
      expect(CLONE_NAMESPACE_FLAGS & flag).toBe(flag);
      expect(evaluateSeccomp(x64, { arch: "x64", nr: 56, args: [flag | 17] })).toEqual(EPERM);
      expect(evaluateSeccomp(arm, { arch: "arm64", nr: 220, args: [flag | 17] })).toEqual(EPERM);
    }
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 435 })).toEqual({ action: "errno", errno: 38 });
  });

  it("lets servers open unix, inet, inet6 and netlink sockets only (no vsock to the hypervisor, no AF_ALG, no packet sockets)", () => {
    for (const family of [1, 2, 10, 16]) expect(evaluateSeccomp(x64, { arch: "x64", nr: 41, args: [family, 1, 0] }).action).toBe("allow");
    for (const family of [40, 38, 17, 4, 0x100000028])
      expect(evaluateSeccomp(x64, { arch: "x64", nr: 41, args: [family, 1, 0] })).toEqual({ action: "errno", errno: 97 });
  });

  it("allows TCP, UDP and ICMP within inet sockets, and no protocol whose module the kernel would load (SCTP, DCCP, ...)", () => {
    for (const [family, protocol] of [
      [2, 0],
      [2, 6],
      [2, 17],
      [2, 1],
      [10, 6],
      [10, 58],
      [1, 0],
      [16, 9],
      [16, 4],
    ]) {
      expect([family, protocol, evaluateSeccomp(x64, { arch: "x64", nr: 41, args: [family!, 1, protocol!] }).action]).toEqual([
        family,
        protocol,
        "allow",
      ]);
      expect(evaluateSeccomp(arm, { arch: "arm64", nr: 198, args: [family!, 1, protocol!] }).action).toBe("allow");
    }
    for (const [family, protocol] of [
      [2, 132],
      [10, 132],
      [2, 33],
      [2, 136],
      [2, 115],
      [1, 132],
    ]) {
      expect(evaluateSeccomp(x64, { arch: "x64", nr: 41, args: [family!, 1, protocol!] })).toEqual({ action: "errno", errno: 93 });
    }
  });

  it("refuses personality flags that turn off address randomisation", () => {
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 135, args: [0xffffffff] }).action).toBe("allow");
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 135, args: [0x0040000] })).toEqual(EPERM);
  });

  it("kills a call made through another ABI and answers x32 and unknown calls with ENOSYS", () => {
    expect(evaluateSeccomp(x64, { arch: 0x40000003, nr: 1 })).toEqual({ action: "kill" });
    expect(evaluateSeccomp(x64, { arch: "x64", nr: 0x40000000 + 165 })).toEqual({ action: "errno", errno: 38 });
    expect(evaluateSeccomp(x64, { arch: "x64", nr: MAX_KNOWN_SYSCALL + 1 })).toEqual({ action: "errno", errno: 38 });
    expect(evaluateSeccomp(x64, { arch: "x64", nr: -1 })).toEqual({ action: "errno", errno: 38 });
  });

  it("uses this machine's system call numbers where its kernel headers are installed", (ctx) => {
    const header = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
    if (!existsSync(header)) return ctx.skip("no x86_64 kernel headers on this machine");
    const known = Object.fromEntries(
      [...readFileSync(header, "utf8").matchAll(/#define __NR_(\w+) (\d+)/g)].map((m) => [m[1], Number(m[2])]),
    );
    for (const [name, nr] of Object.entries(deniedSyscalls("x64"))) if (name in known) expect([name, nr]).toEqual([name, known[name]]);
  });
});
