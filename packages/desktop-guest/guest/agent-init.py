# osharm desktop: pid 1 of the agent's namespace (guest/agent-ns.sh). Starts the agent's session
# (argv) and reaps every orphan of the namespace for as long as the desktop lives.
# - Not dumpable: no process of the agent (uid 1000 without capabilities here, or "root" of a
#   nested namespace) may ptrace it, so it cannot be stopped and the namespace cannot fill with
#   zombies.
# - Every signal at its default: the kernel delivers to a namespace's init no signal sent from
#   inside the namespace unless the init handles it, so `kill -9 1`, `kill -STOP 1` and `kill -9 -1`
#   leave it running (Python's own SIGINT handler would let SIGINT through: reset here).
import ctypes
import os
import signal
import sys
import time

PR_SET_DUMPABLE = 4
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
for number in range(1, signal.NSIG):
    try:
        signal.signal(number, signal.SIG_DFL)
    except (OSError, ValueError):
        pass

if os.fork() == 0:
    os.setsid()
    os.execvp(sys.argv[1], sys.argv[1:])

# Without a child (the session ended, or was killed with everything else) the loop polls: orphans
# the namespace hands to pid 1 later must still be reaped. (It paused here until a signal; with
# SIGCHLD at its default none came, and every later orphan stayed a zombie.)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.2)
    except InterruptedError:
        pass
