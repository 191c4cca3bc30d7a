"""osharm desktop: appends one record to the desktop's append-only records (src/guest-record-log.ts).

The sudo / su stand-ins and the system services run as the desktop user; a file they append to is one
the agent could truncate. So a record goes over the guest server's record socket (in a directory the
agent's namespace sees read-only), and the server appends it where the agent cannot reach. Without a
listening server (a desktop started by hand) the record goes to the file itself.
"""

import json
import os
import socket

SOCKET = os.environ.get("OSHARM_RECORD_SOCKET", "/run/osharm-log/record.sock")
DIRECTORY = os.environ.get("OSHARM_RECORD_DIR", "/run/user/1000/osharm/records")


def send(log, record):
    """Appends RECORD (a dict) to the record LOG ("sudo" or "system"); False when it went nowhere."""
    line = (json.dumps(dict(record, log=log)) + "\n").encode()
    if len(line) > 65536:
        return False
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(10)
    try:
        connection.connect(SOCKET)
    except OSError:
        connection.close()
    else:
        # (connected: the server has the line or the record failed; never written twice)
        with connection:
            try:
                connection.sendall(line)
                connection.shutdown(socket.SHUT_WR)
                connection.recv(1)  # the server closes once the line is written
                return True
            except OSError:
                return False
    try:
        os.makedirs(DIRECTORY, mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(DIRECTORY, log + ".log"),
                     os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return False
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
    finally:
        os.close(fd)
    return True
