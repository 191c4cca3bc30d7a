"""osharm local desktop: what sudo and su ask of the accounts in root's view of /etc.

Usage: account.py ETC_DIR USER (check|sudoer|password)
  check     exit 0 when USER has a passwd entry, 3 when not
  sudoer    exit 0 when sudoers lets USER run everything (directly or through %sudo / %admin), 4 if not
  password  exit 0 when the line on stdin is USER's password per ETC_DIR/shadow, 5 if not (or locked)
ETC_DIR is root's /etc (changed by useradd, passwd, deluser, visudo there) or, before root first ran,
the built-in one. Runs as the desktop user; reads nothing but the given files.
"""

import crypt  # noqa: deprecated in 3.11, present in Debian 12's Python
import glob
import os
import sys


def entries(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [line.rstrip("\n").split(":") for line in handle if line.strip()]
    except OSError:
        return []


def sudoers_lines(etc):
    lines = []
    for path in [os.path.join(etc, "sudoers")] + sorted(glob.glob(os.path.join(etc, "sudoers.d", "*"))):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines += [line.strip() for line in handle]
        except OSError:
            pass
    return [line for line in lines if line and not line.startswith("#") and not line.startswith("Defaults")]


def main():
    etc, user, what = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == "check":
        return 0 if any(entry[0] == user for entry in entries(os.path.join(etc, "passwd"))) else 3
    if what == "sudoer":
        groups = {entry[0] for entry in entries(os.path.join(etc, "group"))
                  if len(entry) > 3 and user in entry[3].split(",")}
        for line in sudoers_lines(etc):
            who = line.split()[0]
            if who == user or (who.startswith("%") and who[1:] in groups):
                return 0
        return 4
    if what == "password":
        typed = sys.stdin.readline().rstrip("\n")
        for entry in entries(os.path.join(etc, "shadow")):
            if entry[0] == user and len(entry) > 1:
                stored = entry[1]
                if not stored or stored[0] in "!*":
                    return 5
                return 0 if crypt.crypt(typed, stored) == stored else 5
        return 5
    return 2


if __name__ == "__main__":
    sys.exit(main())
