"""osharm local desktop: the record of what the sandbox's system services were asked to do.

One JSON line per call in the record "system" (records.py: appended by the guest server where the
agent cannot reach), read by the harness through the guest channel (src/sandbox-system-log.ts): which
service, what call, its arguments and the outcome. It is evidence for the judge, not a control.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from records import send  # noqa: E402


def record(service, call, args, outcome):
    send("system", {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
                    "service": service, "call": call, "args": [str(arg)[:1000] for arg in args][:32],
                    "outcome": outcome})
