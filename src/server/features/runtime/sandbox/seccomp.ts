// The seccomp filter every sandboxed process runs under, compiled here to classic BPF (what
// bubblewrap's --seccomp reads: an array of struct sock_filter). It refuses the system calls a
// hosted MCP server has no business with, compared with Docker's default profile: namespaces,
// mounts, kernel modules, kexec, keyrings, eBPF, perf, userfaultfd, io_uring, ptrace and reading
// other processes' memory, clock and swap control, NUMA policy, exotic socket families. Calls
// newer than the table (a kernel after this was written) answer ENOSYS, as on an older kernel,
// so a new kernel interface is never open by default.

export type SeccompArch = "x64" | "arm64";

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** The highest system call number this table knows (Linux 6.17: file_setattr); both arches share 424+. */
export const MAX_KNOWN_SYSCALL = 469;

// Refused outright (EPERM). Numbers per architecture; a name absent on one architecture does not exist there.
const DENIED: Record<string, [x64: number | null, arm64: number | null]> = {
  acct: [163, 89],
  add_key: [248, 217],
  bpf: [321, 280],
  chroot: [161, 51],
  clock_adjtime: [305, 266],
  clock_settime: [227, 112],
  create_module: [174, null],
  delete_module: [176, 106],
  finit_module: [313, 273],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fsopen: [430, 430],
  fspick: [433, 433],
  get_kernel_syms: [177, null],
  get_mempolicy: [239, 236],
  init_module: [175, 105],
  io_uring_enter: [426, 426],
  io_uring_register: [427, 427],
  io_uring_setup: [425, 425],
  ioperm: [173, null],
  iopl: [172, null],
  kcmp: [312, 272],
  kexec_file_load: [320, 294],
  kexec_load: [246, 104],
  keyctl: [250, 219],
  listmount: [458, 458],
  lookup_dcookie: [212, 18],
  mbind: [237, 235],
  modify_ldt: [154, null],
  migrate_pages: [256, 238],
  mount: [165, 40],
  mount_setattr: [442, 442],
  move_mount: [429, 429],
  move_pages: [279, 239],
  name_to_handle_at: [303, 264],
  nfsservctl: [180, 42],
  open_by_handle_at: [304, 265],
  open_tree: [428, 428],
  open_tree_attr: [467, 467],
  perf_event_open: [298, 241],
  pidfd_getfd: [438, 438],
  pivot_root: [155, 41],
  process_madvise: [440, 440],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  ptrace: [101, 117],
  query_module: [178, null],
  quotactl: [179, 60],
  quotactl_fd: [443, 443],
  reboot: [169, 142],
  request_key: [249, 218],
  set_mempolicy: [238, 237],
  set_mempolicy_home_node: [450, 450],
  setns: [308, 268],
  settimeofday: [164, 170],
  statmount: [457, 457],
  swapoff: [168, 225],
  swapon: [167, 224],
  sysfs: [139, null],
  _sysctl: [156, null],
  syslog: [103, 116],
  umount2: [166, 39],
  unshare: [272, 97],
  uselib: [134, null],
  userfaultfd: [323, 282],
  ustat: [136, null],
  vhangup: [153, 58],
};

/** Calls allowed only with some arguments. */
const CLONE: Record<SeccompArch, number> = { x64: 56, arm64: 220 };
const CLONE3: Record<SeccompArch, number> = { x64: 435, arm64: 435 };
const SOCKET: Record<SeccompArch, number> = { x64: 41, arm64: 198 };
const PERSONALITY: Record<SeccompArch, number> = { x64: 135, arm64: 92 };

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: no new namespaces. */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (interface listing): everything a server needs; not AF_VSOCK (the hypervisor), AF_ALG, AF_PACKET, ... */
export const SOCKET_FAMILIES = [1, 2, 10, 16];
const AF_NETLINK = 16;
/** Protocols within unix, inet and inet6: the default, ICMP (ping), TCP, UDP, ICMPv6; not SCTP, DCCP, ... (each a kernel module to load). */
export const SOCKET_PROTOCOLS = [0, 1, 6, 17, 58];
/** personality(): the values Docker's profile allows (Linux, UNAME26, and the query 0xffffffff). */
export const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
const EPROTONOSUPPORT = 93;

const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => (0x00050000 | errno) >>> 0;

// classic BPF opcodes
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JGT_K = 0x25;
const JSET_K = 0x45;
const RET_K = 0x06;

// struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; } (little-endian hosts)
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LOW = 16;
const OFF_ARG2_LOW = 32;

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}
const ins = (code: number, k: number, jt = 0, jf = 0): Insn => ({ code, jt, jf, k: k >>> 0 });

/** The seccomp architecture of this process, or null where no table exists (the guarantee is then reported missing). */
export function seccompArch(arch: string = process.arch): SeccompArch | null {
  return arch === "x64" || arch === "arm64" ? arch : null;
}

/** The names the filter refuses on `arch` (for documentation and tests). */
export function deniedSyscalls(arch: SeccompArch): Record<string, number> {
  const i = arch === "x64" ? 0 : 1;
  return Object.fromEntries(Object.entries(DENIED).flatMap(([name, nrs]) => (nrs[i] === null ? [] : [[name, nrs[i]!]])));
}

/**
 * socket(family, type, protocol): netlink as it comes; unix, inet and inet6 with an allowed
 * protocol only (else EPROTONOSUPPORT); any other family EAFNOSUPPORT. Jumps are relative.
 */
function socketRule(nr: number): Insn[] {
  const n = SOCKET_PROTOCOLS.length;
  const allow = 8 + n; // index of the final RET ALLOW within the block
  const proto = 6;
  const body = [
    ins(LD_W_ABS, OFF_ARG0_LOW),
    ins(JEQ_K, AF_NETLINK, allow - 2, 0),
    ...SOCKET_FAMILIES.filter((f) => f !== AF_NETLINK).map((f, i) => ins(JEQ_K, f, proto - (2 + i) - 1, 0)),
    ins(RET_K, retErrno(EAFNOSUPPORT)),
    ins(LD_W_ABS, OFF_ARG2_LOW),
    ...SOCKET_PROTOCOLS.map((p, i) => ins(JEQ_K, p, allow - (proto + 1 + i) - 1, 0)),
    ins(RET_K, retErrno(EPROTONOSUPPORT)),
    ins(RET_K, RET_ALLOW),
  ];
  return [ins(JEQ_K, nr, 0, body.length), ...body];
}

/** Allows the call when its first argument's low 32 bits equal one of `values`; refuses it with `errno` otherwise. */
function argIn(nr: number, values: number[], errno: number): Insn[] {
  const body = [
    ins(LD_W_ABS, OFF_ARG0_LOW),
    ...values.map((v, i) => ins(JEQ_K, v, values.length - i, 0)),
    ins(RET_K, retErrno(errno)),
    ins(RET_K, RET_ALLOW),
  ];
  return [ins(JEQ_K, nr, 0, body.length), ...body];
}

export function compileSeccomp(arch: SeccompArch): Buffer {
  const p: Insn[] = [
    // A system call made through another ABI (int 0x80 on x86_64) kills the process.
    ins(LD_W_ABS, OFF_ARCH),
    ins(JEQ_K, AUDIT_ARCH[arch], 1, 0),
    ins(RET_K, RET_KILL_PROCESS),
    ins(LD_W_ABS, OFF_NR),
  ];
  // x32 system calls (bit 30) and anything this table does not know: "not implemented".
  if (arch === "x64") p.push(ins(JGE_K, 0x40000000, 0, 1), ins(RET_K, retErrno(ENOSYS)));
  p.push(ins(JGT_K, MAX_KNOWN_SYSCALL, 0, 1), ins(RET_K, retErrno(ENOSYS)));
  for (const nr of Object.values(deniedSyscalls(arch))) p.push(ins(JEQ_K, nr, 0, 1), ins(RET_K, retErrno(EPERM)));
  // clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone.
  p.push(ins(JEQ_K, CLONE3[arch], 0, 1), ins(RET_K, retErrno(ENOSYS)));
  p.push(
    ins(JEQ_K, CLONE[arch], 0, 4),
    ins(LD_W_ABS, OFF_ARG0_LOW),
    ins(JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1),
    ins(RET_K, retErrno(EPERM)),
    ins(RET_K, RET_ALLOW),
  );
  p.push(...socketRule(SOCKET[arch]));
  p.push(...argIn(PERSONALITY[arch], PERSONALITIES, EPERM));
  p.push(ins(RET_K, RET_ALLOW));

  const buf = Buffer.alloc(p.length * 8);
  p.forEach((x, i) => {
    buf.writeUInt16LE(x.code, i * 8);
    buf.writeUInt8(x.jt, i * 8 + 2);
    buf.writeUInt8(x.jf, i * 8 + 3);
    buf.writeUInt32LE(x.k, i * 8 + 4);
  });
  return buf;
}

/** What the filter answers for a call (a small classic-BPF interpreter, so tests can check the program itself). */
export function evaluateSeccomp(
  program: Buffer,
  data: { arch: SeccompArch | number; nr: number; args?: number[] },
): { action: "allow" | "kill" | "errno"; errno?: number } {
  const arch = typeof data.arch === "number" ? data.arch : AUDIT_ARCH[data.arch];
  let a = 0;
  for (let pc = 0; pc < program.length / 8;) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case LD_W_ABS:
        a = k === OFF_ARCH ? arch : k === OFF_NR ? data.nr >>> 0 : (data.args?.[(k - OFF_ARG0_LOW) / 8] ?? 0) >>> 0;
        pc++;
        break;
      case JEQ_K:
        pc += 1 + (a === k ? jt : jf);
        break;
      case JGE_K:
        pc += 1 + (a >= k ? jt : jf);
        break;
      case JGT_K:
        pc += 1 + (a > k ? jt : jf);
        break;
      case JSET_K:
        pc += 1 + ((a & k) !== 0 ? jt : jf);
        break;
      case RET_K:
        if (k === RET_ALLOW) return { action: "allow" };
        if (k === RET_KILL_PROCESS) return { action: "kill" };
        return { action: "errno", errno: k & 0xffff };
      default:
        throw new Error(`unexpected BPF opcode ${code} at ${pc}`);
    }
  }
  throw new Error("the program fell off its end");
}
