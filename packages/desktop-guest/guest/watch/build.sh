#!/bin/sh
# Builds guest/exec_watch.py's C twin (exec-watch.c) into dist/osharm-exec-watch at the package's
# build, static (the container image's libc does not matter). Without a C compiler, or on a machine
# that is not x86_64, nothing is built and sandbox-session.sh runs the Python one.
here="$(dirname "$0")"
out="$here/../../dist/osharm-exec-watch"
rm -f "$out"
[ "$(uname -m)" = x86_64 ] || exit 0
command -v cc >/dev/null 2>&1 || {
  echo "desktop-guest: no C compiler: the exec watch runs in Python (guest/exec_watch.py)" >&2
  exit 0
}
cc -O2 -static -o "$out" "$here/exec-watch.c" 2>/dev/null || cc -O2 -o "$out" "$here/exec-watch.c" ||
  echo "desktop-guest: exec-watch.c did not build: the exec watch runs in Python (guest/exec_watch.py)" >&2
exit 0
