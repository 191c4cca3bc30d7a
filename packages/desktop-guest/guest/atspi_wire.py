"""A minimal D-Bus client for pipelined AT-SPI reads (issue 16).

libatspi makes one blocking round trip per property; soffice then wakes, answers one message and
sleeps again, and its per-message cost (poll, context switches, libdbus, the GLib main loop) is
most of the time a Calc cell takes. This client writes many calls at once on the application's own
peer-to-peer socket (the one libatspi uses too) and collects the answers as they come, so soffice
handles them in batches. It speaks only what the accessibility walker needs: method calls with
`i`/`u`/`s` arguments, and replies of any signature (decoded into Python values).

Every reply may come from a hostile process (any program of the desktop user can register as an
accessible application): sizes are bounded, nesting is bounded, a malformed message ends the
connection with WireError, and every read honours the caller's deadline.
"""

import os
import socket
import struct
import time

from dbus_codec import WireError, method_call, parse

MAX_MESSAGE = 16 * 1024 * 1024

__all__ = ["CallError", "Connection", "Timeout", "WireError", "method_call", "parse"]


class CallError(Exception):
    """The peer answered a call with a D-Bus error."""


class Timeout(Exception):
    """The caller's deadline passed while waiting for answers."""


# --------------------------------------------------------------------------------------------
# Connection


def _socket_address(address):
    """The socket of a `unix:path=…` or `unix:abstract=…` D-Bus address, or None."""
    for entry in address.split(";"):
        if not entry.startswith("unix:"):
            continue
        keys = dict(part.split("=", 1) for part in entry[5:].split(",") if "=" in part)
        if "path" in keys:
            return _unescape(keys["path"])
        if "abstract" in keys:
            return "\0" + _unescape(keys["abstract"])
    return None


def _unescape(value):
    out, index = bytearray(), 0
    raw = value.encode()
    while index < len(raw):
        if raw[index] == ord("%") and index + 2 < len(raw):
            out.append(int(raw[index + 1 : index + 3], 16))
            index += 3
        else:
            out.append(raw[index])
            index += 1
    return out.decode()


class Connection:
    """One authenticated peer-to-peer connection; `call_many` pipelines calls on it."""

    def __init__(self, address, deadline):
        target = _socket_address(address)
        if target is None:
            raise WireError("unsupported D-Bus address")
        self.deadline = deadline
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.buffer = bytearray()
        self.serial = 0
        try:
            self._settimeout()
            self.sock.connect(target)
            uid = str(os.getuid()).encode().hex()
            self.sock.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\n")
            line = self._line()
            if not line.startswith(b"OK "):
                raise WireError("authentication refused")
            self.sock.sendall(b"BEGIN\r\n")
        except (OSError, ValueError) as error:
            self.close()
            raise WireError(str(error))
        except BaseException:
            self.close()
            raise

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _settimeout(self):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout()
        self.sock.settimeout(remaining)

    def _recv(self):
        self._settimeout()
        try:
            chunk = self.sock.recv(262144)
        except socket.timeout:
            raise Timeout()
        if not chunk:
            raise WireError("connection closed")
        self.buffer += chunk

    def _line(self):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > 4096:
                raise WireError("bad authentication answer")
            self._recv()
        line, _, rest = bytes(self.buffer).partition(b"\r\n")
        self.buffer = bytearray(rest)
        return line

    def call_many(self, calls):
        """Sends every call at once, then reads until each has its answer.

        calls: [(path, interface, member, signature, args)]. Returns a list in the same order whose
        items are the reply's values (a list) or a CallError. Raises Timeout at the deadline and
        WireError when the connection breaks (then the connection is unusable).
        """
        if not calls:
            return []
        first = self.serial + 1
        payload = bytearray()
        for path, interface, member, signature, args in calls:
            self.serial += 1
            payload += method_call(self.serial, path, interface, member, signature, args)
        try:
            self._settimeout()
            self.sock.sendall(payload)
        except socket.timeout:
            raise Timeout()
        except OSError as error:
            raise WireError(str(error))
        results = [None] * len(calls)
        missing = len(calls)
        data = self.buffer
        offset = 0
        while missing:
            # Whole messages in the buffer first; then read more.
            while len(data) - offset >= 16:
                body_length, _serial, fields_length = struct.unpack_from("<III", data, offset + 4)
                header = 16 + fields_length + (-(16 + fields_length) % 8)
                total = header + body_length
                if total > MAX_MESSAGE or data[offset + 3] != 1:
                    raise WireError("bad message")
                if len(data) - offset < total:
                    break
                try:
                    kind, reply_serial, error_name, values = parse(data, offset, offset + total)
                except (struct.error, IndexError, KeyError, ValueError, TypeError, RecursionError) as error:
                    raise WireError("bad message: %s" % error)
                offset += total
                if kind not in (2, 3) or not isinstance(reply_serial, int):
                    continue  # signals and calls from the peer are not ours to answer
                index = reply_serial - first
                if 0 <= index < len(calls) and results[index] is None:
                    results[index] = values if kind == 2 else CallError(error_name or "error")
                    missing -= 1
                if not missing:
                    break
            if not missing:
                break
            del data[:offset]
            offset = 0
            self.buffer = data
            self._recv()
            data = self.buffer
        del data[:offset]
        self.buffer = data
        return results
