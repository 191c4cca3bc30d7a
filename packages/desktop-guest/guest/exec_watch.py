# osharm desktop: the harm observer's exec and connection watch (docs/packages/harm.md). A seccomp
# user-notification filter stops each execve / execveat / connect, and each socket() of an IP or
# packet family, of the processes below it until the supervisor, on the guest server's side, has
# recorded the call; it then lets the call go on unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE). So a
# process that starts and ends between two /proc polls, and a connection attempt closed at once,
# are recorded all the same.
#
#   exec_watch.py supervise SOCKET RECORD   the supervisor: takes listener descriptors on SOCKET
#                                           (a unix socket in the server's private directory) and
#                                           appends one JSON line per call to RECORD
#   exec_watch.py wrap SOCKET LABEL -- ARGV  installs the filter on itself, hands its listener to the
#                                           supervisor, then execs ARGV (the guest server; bwrap of
#                                           the agent's namespace): every descendant inherits it
#
# If the filter cannot be installed or handed over (no seccomp, an engine's profile refusing it, no
# supervisor), `wrap` says so on stderr and in RECORD's directory (exec-watch-<LABEL>.problem) and
# execs ARGV without it: the desktop runs, the record says the watch is missing.
# What the supervisor reads of a stopped call (argv, the address) is read from the caller's memory
# while the call waits; a second thread of the caller could change it meanwhile (the known limit of
# seccomp user notification): the /proc poll's command line of the process is recorded beside it.
import ctypes
import json
import os
import selectors
import socket
import struct
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.syscall.restype = ctypes.c_long
SYS_SECCOMP = 317
SYS_PIDFD_OPEN = 434
SYS_PIDFD_GETFD = 438
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
# Calls of the other ABIs a 64-bit x86 process can make (i386 through int 0x80, x32) that start a
# program or a connection: recorded as such ("foreign-abi"), their arguments not read.
FOREIGN_I386 = {11: "execve", 358: "execveat", 102: "socketcall", 359: "socket", 362: "connect"}
FOREIGN_X32 = {520: "execve", 545: "execveat", 42: "connect", 41: "socket"}
NR_EXECVE, NR_EXECVEAT, NR_CONNECT, NR_SOCKET, NR_IO_URING_SETUP = 59, 322, 42, 41, 425
RET_ALLOW, RET_NOTIFY, RET_ERRNO_EPERM = 0x7FFF0000, 0x7FC00000, 0x00050001
NOTIF_RECV, NOTIF_SEND, NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
FLAG_CONTINUE = 1
# The record shares the runtime tmpfs with the recording: past 8 MiB (~20 000 calls) calls are counted
# as dropped (the record is then marked degraded), never written.
MAX_RECORD_BYTES = 8 * 1024 * 1024
ARGV_CAP, ARG_CAP = 64, 2048
OWN_USER_NS = os.readlink("/proc/self/ns/user")
LAST_SOCKET_TYPE = {}  # pid → the type of its last watched socket()


def bpf(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def filter_program():
    # ld arch: not x86_64 (an i386 syscall, int 0x80) → notify every call. ld nr: an x32 call →
    # notify; io_uring_setup → EPERM (its ring would connect past this filter: programs fall back to
    # plain calls, as under the container engines' default profiles); execve / execveat / connect →
    # notify; socket of an IP or packet family → notify; everything else runs unwatched.
    ld_w_abs, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    prog = [
        bpf(ld_w_abs, 0, 0, 4),
        bpf(jeq, 1, 0, AUDIT_ARCH_X86_64),
        bpf(ret, 0, 0, RET_NOTIFY),
        bpf(ld_w_abs, 0, 0, 0),
        bpf(jset, 10, 0, X32_BIT),  # → notify
        bpf(jeq, 10, 0, NR_IO_URING_SETUP),  # → EPERM
        bpf(jeq, 8, 0, NR_EXECVE),
        bpf(jeq, 7, 0, NR_EXECVEAT),
        bpf(jeq, 6, 0, NR_CONNECT),
        bpf(jeq, 0, 4, NR_SOCKET),  # not socket → allow
        bpf(ld_w_abs, 0, 0, 16),  # args[0] (low word): the family
        bpf(jeq, 3, 0, socket.AF_INET),
        bpf(jeq, 2, 0, socket.AF_INET6),
        bpf(jeq, 1, 0, socket.AF_PACKET),
        bpf(ret, 0, 0, RET_ALLOW),
        bpf(ret, 0, 0, RET_NOTIFY),
        bpf(ret, 0, 0, RET_ERRNO_EPERM),
    ]
    return b"".join(prog)


def problem(record_dir, label, text):
    sys.stderr.write(f"osharm exec watch ({label}): {text}; running without it\n")
    try:
        with open(os.path.join(record_dir, f"exec-watch-{label}.problem"), "w") as out:
            out.write(text + "\n")
    except OSError:
        pass


def wrap(sock_path, label, argv):
    record_dir = os.path.dirname(sock_path)
    listener = -1
    try:
        if os.uname().machine != "x86_64":
            raise OSError(f"not built for {os.uname().machine}")
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        channel.settimeout(10)
        try:
            channel.connect(sock_path)  # before the filter: connect is watched afterwards
        except OSError as error:
            raise OSError(f"no supervisor listening at {sock_path} ({error.strerror})") from None
        program = filter_program()
        buffer = ctypes.create_string_buffer(program)
        fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
        fprog_buffer = ctypes.create_string_buffer(fprog)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS)")
        listener = libc.syscall(
            SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, fprog_buffer
        )
        if listener < 0:
            raise OSError(ctypes.get_errno(), "seccomp(NEW_LISTENER) refused")
        # From here every exec must be answered: hand the listener over and wait for the taking.
        socket.send_fds(channel, [label.encode()], [listener])
        if channel.recv(1) != b"k":
            raise OSError("the supervisor did not take the listener")
        os.close(listener)
        channel.close()
    except OSError as error:
        problem(record_dir, label, str(error))
        if listener >= 0:
            # The filter is on and no one answers it: closed, its calls fail (ENOSYS) and the program
            # below fails to start, loudly, rather than hang at its first exec.
            os.close(listener)
    os.execvp(argv[0], argv)


def read_mem(mem, address, length):
    try:
        return os.pread(mem, length, address)
    except OSError:
        return b""


def read_string(mem, address):
    if not address:
        return None
    data = read_mem(mem, address, ARG_CAP)
    end = data.find(b"\0")
    return (data if end < 0 else data[:end]).decode("utf-8", "replace")


def read_argv(mem, address):
    argv = []
    for index in range(ARGV_CAP):
        raw = read_mem(mem, address + 8 * index, 8)
        if len(raw) < 8:
            break
        (pointer,) = struct.unpack("Q", raw)
        if not pointer:
            break
        argv.append(read_string(mem, pointer) or "")
    return argv


def proc_facts(pid):
    facts = {}
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
        fields = text[text.rindex(")") + 2 :].split()
        facts["ppid"] = int(fields[1])
        facts["start"] = fields[19]
    except (OSError, ValueError):
        pass
    for key, path in (("pidns", f"/proc/{pid}/ns/pid"), ("cwd", f"/proc/{pid}/cwd")):
        try:
            facts[key] = os.readlink(path)
        except OSError:
            facts[key] = None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("Uid:"):
                    facts["uid"] = int(line.split()[1])
                    break
    except (OSError, ValueError):
        pass
    # The uid as the process sees itself (0 for sudo's root: a nested user namespace).
    facts["uid_inside"] = facts.get("uid")
    try:
        if "uid" in facts and os.readlink(f"/proc/{pid}/ns/user") != OWN_USER_NS:
            with open(f"/proc/{pid}/uid_map") as uid_map:
                for line in uid_map:
                    inside, outside, count = (int(part) for part in line.split())
                    if outside <= facts["uid"] < outside + count:
                        facts["uid_inside"] = facts["uid"] - outside + inside
    except (OSError, ValueError):
        pass
    return facts


def socket_type(pid, fd):
    """SOCK_STREAM / SOCK_DGRAM of the caller's descriptor (a duplicate taken with pidfd_getfd)."""
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        return None
    try:
        dup = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
        if dup < 0:
            return None
        try:
            probe = socket.socket(fileno=dup)
            kind = probe.type
            probe.detach()
            return kind
        finally:
            os.close(dup)
    finally:
        os.close(pidfd)


def describe(pid, nr, arch, args):
    """The event of one stopped call, or None for one not recorded (a unix-socket connect)."""
    if arch != AUDIT_ARCH_X86_64 or nr & X32_BIT:
        table = FOREIGN_X32 if arch == AUDIT_ARCH_X86_64 else FOREIGN_I386
        call = table.get(nr & ~X32_BIT)
        return None if call is None else {"kind": "foreign-abi", "call": call, "arch": hex(arch)}
    try:
        mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        mem = None
    try:
        if nr in (NR_EXECVE, NR_EXECVEAT):
            path_arg, argv_arg = (0, 1) if nr == NR_EXECVE else (1, 2)
            event = {"kind": "exec"}
            if mem is not None:
                event["file"] = read_string(mem, args[path_arg])
                event["argv"] = read_argv(mem, args[argv_arg]) if args[argv_arg] else []
            # A search along PATH tries names that do not exist: not a program started.
            file = event.get("file")
            if file and (nr == NR_EXECVE or file.startswith("/")):
                seen_from = f"/proc/{pid}/root{file}" if file.startswith("/") else f"/proc/{pid}/cwd/{file}"
                if not os.path.exists(seen_from):
                    return None
            return event
        if nr == NR_SOCKET:
            family = args[0] & 0xFFFFFFFF
            kind = args[1] & 0xF
            name = {socket.AF_INET: "inet", socket.AF_INET6: "inet6", socket.AF_PACKET: "packet"}
            if len(LAST_SOCKET_TYPE) > 4096:
                LAST_SOCKET_TYPE.clear()
            LAST_SOCKET_TYPE[pid] = kind
            return {"kind": "socket", "family": name.get(family, str(family)), "type": kind}
        if nr == NR_CONNECT:
            length = min(args[2] & 0xFFFFFFFF, 128)
            raw = read_mem(mem, args[1], length) if mem is not None and args[1] else b""
            if len(raw) < 2:
                return None
            (family,) = struct.unpack("H", raw[:2])
            if family == socket.AF_INET and len(raw) >= 8:
                address = socket.inet_ntop(socket.AF_INET, raw[4:8])
            elif family == socket.AF_INET6 and len(raw) >= 24:
                address = socket.inet_ntop(socket.AF_INET6, raw[8:24])
                if address.startswith("::ffff:") and "." in address:
                    address = address[7:]
            else:
                return None  # unix, netlink, …: not a connection out
            (port,) = struct.unpack("!H", raw[2:4])
            kind = socket_type(pid, args[0] & 0xFFFFFFFF)
            if kind is None:  # pidfd_getfd refused (an engine's profile): the caller's last IP socket()
                kind = LAST_SOCKET_TYPE.get(pid)
            protocol = {socket.SOCK_STREAM: "tcp", socket.SOCK_DGRAM: "udp"}.get(kind, "ip")
            event = {"kind": "connect", "address": address, "port": port, "protocol": protocol}
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    argv = cmdline.read(ARG_CAP * 4).split(b"\0")
                event["argv"] = [part.decode("utf-8", "replace") for part in argv if part][:ARGV_CAP]
            except OSError:
                pass
            return event
        return None
    finally:
        if mem is not None:
            os.close(mem)


class Record:
    def __init__(self, path):
        self.path = path
        self.out = open(path, "a", buffering=1)
        self.dropped = 0

    def write(self, event):
        try:
            if self.out.tell() <= MAX_RECORD_BYTES:
                self.out.write(json.dumps(event, separators=(",", ":")) + "\n")
                return
        except (OSError, ValueError):
            pass  # a full disk: counted as dropped below
        self.dropped += 1
        if self.dropped == 1 or self.dropped % 1000 == 0:
            try:
                with open(self.path + ".dropped", "w") as out:
                    out.write(f"{self.dropped}\n")
            except OSError:
                pass


def answer(listener, notif_id):
    response = ctypes.create_string_buffer(struct.pack("QqiI", notif_id, 0, 0, FLAG_CONTINUE))
    libc.ioctl(listener, NOTIF_SEND, response)  # fails only for a caller gone meanwhile


def supervise(sock_path, record_path):
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    record = Record(record_path)
    selector = selectors.DefaultSelector()
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    os.chmod(sock_path, 0o600)
    server.listen(16)
    selector.register(server, selectors.EVENT_READ, ("server", None))
    notif = ctypes.create_string_buffer(80)
    while True:
        for key, _ in selector.select():
            kind, label = key.data
            if kind == "server":
                conn, _ = server.accept()
                try:
                    msg, fds, _, _ = socket.recv_fds(conn, 64, 1)
                    if fds:
                        selector.register(fds[0], selectors.EVENT_READ, ("listener", msg.decode()))
                        record.write({"kind": "watch", "label": msg.decode(), "t": time.time()})
                    conn.sendall(b"k")
                except OSError:
                    pass
                finally:
                    conn.close()
                continue
            listener = key.fd
            ctypes.memset(notif, 0, 80)
            if libc.ioctl(listener, NOTIF_RECV, notif) != 0:
                if ctypes.get_errno() in (2, 4):  # ENOENT: the caller went away; EINTR
                    continue
                # Every process under this listener has ended (or the filter is gone).
                selector.unregister(listener)
                os.close(listener)
                continue
            notif_id, pid, _flags, nr, arch, _ip = struct.unpack_from("QIIiIQ", notif.raw, 0)
            args = struct.unpack_from("6Q", notif.raw, 32)
            try:
                handle(record, listener, label, notif_id, pid, nr, arch, args)
            finally:
                answer(listener, notif_id)  # never leave a call stopped


def handle(record, listener, label, notif_id, pid, nr, arch, args):
    event = None
    try:
        event = describe(pid, nr, arch, args)
    except Exception as error:  # noqa: BLE001 — recorded, and the call goes on
        event = {"kind": "error", "message": str(error)[:200]}
    if event is None:
        return
    event.update(proc_facts(pid))
    event.update({"t": time.time(), "pid": pid, "label": label})
    # Read while the call still waits (its id valid): else the caller is gone.
    valid = libc.ioctl(listener, NOTIF_ID_VALID, ctypes.byref(ctypes.c_uint64(notif_id)))
    if valid != 0:
        event["gone"] = True
    record.write(event)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "supervise":
        supervise(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 6 and sys.argv[1] == "wrap" and sys.argv[4] == "--":
        wrap(sys.argv[2], sys.argv[3], sys.argv[5:])
    else:
        sys.stderr.write(__doc__ or "usage: exec_watch.py supervise SOCK RECORD | wrap SOCK LABEL -- ARGV\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
