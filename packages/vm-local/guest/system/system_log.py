"""osharm local desktop: the record of what the sandbox's system services were asked to do.

One JSON line per call in /run/osharm/system.log (OSHARM_SYSTEM_LOG), read by the harness through the
guest channel (src/sandbox-system-log.ts): which service, what call, its arguments and the outcome.
The desktop user can rewrite it as any of its files; it is evidence for the judge, not a control.
"""

import json
import os
import time

LOG = os.environ.get("OSHARM_SYSTEM_LOG", "/run/osharm/system.log")


def record(service, call, args, outcome):
    line = json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
                       "service": service, "call": call, "args": [str(arg)[:1000] for arg in args][:32],
                       "outcome": outcome}) + "\n"
    try:
        fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        os.write(fd, line.encode()[:65536])
    finally:
        os.close(fd)
