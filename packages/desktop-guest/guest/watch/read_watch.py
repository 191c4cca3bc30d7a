# osharm desktop: the harm observer's watch of credential-store reads (docs/packages/harm.md).
# Started by the guest server at the baseline (src/guest-harm-reads.ts), on its side of the sandbox,
# with one JSON line on stdin: {"files": [...], "dirs": [...], "home": "...", "names": [...]}; then a
# line "mark" on stdin at each of the observer's marks, answered {"event": "marked"} once every read
# inotify had queued by then is written (so a read lands in the step it happened in).
# inotify watches each file itself (its inode: a read through a hard link, a renamed directory or
# /proc/PID/fd counts too) and each directory (a file or directory created or moved there is watched
# from then on; in "home" only the entries named in "names"). One JSON line per read on stdout:
# {"path": ..., "event": "read" (closed after an open without write) | "access" (data read), "t": ...}.
# inotify says no pid: the reader records the reading process as unknown (unprivileged fanotify
# hides it as well). A full queue is reported as {"event": "overflow"}.
import ctypes
import json
import os
import select
import struct
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
IN_ACCESS, IN_CLOSE_NOWRITE, IN_MOVED_TO, IN_CREATE = 0x1, 0x10, 0x80, 0x100
IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x4000, 0x8000, 0x40000000
IN_CLOEXEC, IN_NONBLOCK = 0o2000000, 0o4000
FILE_MASK = IN_ACCESS | IN_CLOSE_NOWRITE
DIR_MASK = IN_CREATE | IN_MOVED_TO

spec = json.loads(sys.stdin.buffer.readline())
fd = libc.inotify_init1(IN_CLOEXEC | IN_NONBLOCK)
if fd < 0:
    print(json.dumps({"event": "error", "error": os.strerror(ctypes.get_errno())}), flush=True)
    sys.exit(1)
watches = {}  # wd → (path, is_dir, names allowed or None)


def watch(path, is_dir, names=None):
    mask = DIR_MASK if is_dir else FILE_MASK
    wd = libc.inotify_add_watch(fd, os.fsencode(path), mask)
    if wd < 0:
        return
    watches[wd] = (path, is_dir, names)
    if is_dir and names is None:
        for entry in os.scandir(path):
            if entry.is_dir(follow_symlinks=False):
                watch(entry.path, True)
            elif entry.is_file(follow_symlinks=False):
                watch(entry.path, False)


for path in spec["files"]:
    watch(path, False)
for path in spec["dirs"]:
    watch(path, True)
watch(spec["home"], True, set(spec["names"]))
print(json.dumps({"event": "ready", "watches": len(watches)}), flush=True)



def drain():
    out = []
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            break
        at = 0
        while at < len(data):
            wd, mask, _cookie, size = struct.unpack_from("iIII", data, at)
            name = data[at + 16 : at + 16 + size].rstrip(b"\0").decode("utf-8", "replace")
            at += 16 + size
            if mask & IN_Q_OVERFLOW:
                out.append({"event": "overflow", "t": time.time()})
                continue
            if mask & IN_IGNORED:
                watches.pop(wd, None)
                continue
            path, is_dir, names = watches.get(wd, (None, False, None))
            if path is None:
                continue
            if mask & (IN_CREATE | IN_MOVED_TO):
                if names is None or name in names:
                    watch(os.path.join(path, name), bool(mask & IN_ISDIR))
                continue
            if not is_dir:
                event = "read" if mask & IN_CLOSE_NOWRITE else "access"
                out.append({"path": path, "event": event, "t": time.time()})
    if out:
        sys.stdout.write("".join(json.dumps(each) + "\n" for each in out))
        sys.stdout.flush()


stdin = sys.stdin.buffer
while True:
    ready, _, _ = select.select([fd, stdin], [], [])
    if fd in ready:
        drain()
    if stdin in ready:
        line = stdin.readline()
        if not line:
            break  # the guest server ended the watch
        drain()
        print(json.dumps({"event": "marked"}), flush=True)
