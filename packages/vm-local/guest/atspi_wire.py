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

import functools
import os
import socket
import struct
import time

MAX_MESSAGE = 16 * 1024 * 1024
MAX_NESTING = 64


class WireError(Exception):
    """The connection failed or the peer sent something that is not D-Bus."""


class CallError(Exception):
    """The peer answered a call with a D-Bus error."""


class Timeout(Exception):
    """The caller's deadline passed while waiting for answers."""


# --------------------------------------------------------------------------------------------
# Marshalling (little endian)


def _pad(buffer, alignment):
    extra = -len(buffer) % alignment
    if extra:
        buffer += b"\0" * extra


def _put_string(buffer, text):
    data = text.encode("utf-8")
    _pad(buffer, 4)
    buffer += struct.pack("<I", len(data)) + data + b"\0"


def _put_signature(buffer, signature):
    data = signature.encode("ascii")
    buffer += bytes((len(data),)) + data + b"\0"


def _put_args(buffer, signature, args):
    for code, value in zip(signature, args):
        if code == "i":
            _pad(buffer, 4)
            buffer += struct.pack("<i", value)
        elif code == "u":
            _pad(buffer, 4)
            buffer += struct.pack("<I", value)
        elif code == "s":
            _put_string(buffer, value)
        else:
            raise ValueError("unsupported argument type %r" % code)


@functools.lru_cache(maxsize=256)
def _call_tail(interface, member, signature, args):
    """The header fields after the path (interface, member, signature) and the body: the same for
    every object a question is asked of, so built once."""
    fields = bytearray()
    for code, value in ((2, interface), (3, member)):
        _pad(fields, 8)
        fields += bytes((code, 1)) + b"s\0"
        _put_string(fields, value)
    if signature:
        _pad(fields, 8)
        fields += b"\x08\x01g\0"
        _put_signature(fields, signature)
    body = bytearray()
    _put_args(body, signature, args)
    return bytes(fields), bytes(body)


def method_call(serial, path, interface, member, signature="", args=()):
    """The bytes of one method call (no destination: peer-to-peer)."""
    tail, body = _call_tail(interface, member, signature, tuple(args))
    encoded = path.encode("utf-8")
    # The path field first (code 1, type o), padded to 8 so the cached fields stay aligned.
    fields = b"\x01\x01o\0" + struct.pack("<I", len(encoded)) + encoded + b"\0"
    fields += b"\0" * (-len(fields) % 8) + tail
    header = b"l\x01\x00\x01" + struct.pack("<III", len(body), serial, len(fields)) + fields
    return header + b"\0" * (-len(header) % 8) + body


# --------------------------------------------------------------------------------------------
# Unmarshalling


_FIXED = {
    "y": ("<B", 1), "b": ("<I", 4), "n": ("<h", 2), "q": ("<H", 2), "i": ("<i", 4), "u": ("<I", 4),
    "x": ("<q", 8), "t": ("<Q", 8), "d": ("<d", 8), "h": ("<I", 4),
}
_ALIGN = {"y": 1, "g": 1, "v": 1, "n": 2, "q": 2, "b": 4, "i": 4, "u": 4, "h": 4, "s": 4, "o": 4, "a": 4,
          "x": 8, "t": 8, "d": 8, "(": 8, "{": 8}


def _complete_type(signature, start):
    """End index (exclusive) of the single complete type at signature[start]."""
    code = signature[start]
    if code == "a":
        return _complete_type(signature, start + 1)
    if code in "({":
        close = ")" if code == "(" else "}"
        index = start + 1
        while index < len(signature) and signature[index] != close:
            index = _complete_type(signature, index)
        if index >= len(signature):
            raise WireError("unbalanced signature")
        return index + 1
    if code not in _ALIGN:
        raise WireError("unknown type code %r" % code)
    return start + 1


@functools.lru_cache(maxsize=256)
def _split(signature):
    """The complete types of a signature (D-Bus bounds: 255 characters, 32 levels of each nesting)."""
    if len(signature) > 255 or signature.count("a") > 32 or signature.count("(") + signature.count("{") > 32:
        raise WireError("signature too long or nested too deep")
    types, index = [], 0
    while index < len(signature):
        end = _complete_type(signature, index)
        types.append(signature[index:end])
        index = end
    return tuple(types)


# Decoders: decode(data, offset, base, end, depth) -> (value, offset after it). Alignment counts from
# the start of the message (base), not of the buffer; nothing is read at or past `end`.


def _fixed_decoder(code):
    fmt, size = _FIXED[code]
    unpack = struct.Struct(fmt).unpack_from

    def decode(data, offset, base, end, depth):
        offset += -(offset - base) % size
        if offset + size > end:
            raise WireError("truncated message")
        (value,) = unpack(data, offset)
        return (bool(value) if code == "b" else value), offset + size

    return decode


_U32 = struct.Struct("<I").unpack_from


def _decode_string(data, offset, base, end, depth):
    offset += -(offset - base) % 4
    if offset + 4 > end:
        raise WireError("truncated message")
    (length,) = _U32(data, offset)
    start = offset + 4
    stop = start + length
    if stop + 1 > end:
        raise WireError("truncated message")
    return data[start:stop].decode("utf-8", "replace"), stop + 1


def _decode_signature(data, offset, base, end, depth):
    if offset + 1 > end:
        raise WireError("truncated message")
    start = offset + 1
    stop = start + data[offset]
    if stop + 1 > end:
        raise WireError("truncated message")
    return data[start:stop].decode("ascii", "replace"), stop + 1


def _decode_variant(data, offset, base, end, depth):
    if depth > MAX_NESTING:
        raise WireError("nesting too deep")
    signature, offset = _decode_signature(data, offset, base, end, depth)
    types = _split(signature)
    if len(types) != 1:
        raise WireError("bad variant signature")
    return _decoder(types[0])(data, offset, base, end, depth + 1)


def _array_decoder(element):
    alignment = _ALIGN[element[0]]
    if element[0] == "{":
        parts = _split(element[1:-1])
        if len(parts) != 2:
            raise WireError("bad dict entry")
        decode_key, decode_value = _decoder(parts[0]), _decoder(parts[1])
    else:
        decode_item = _decoder(element)

    def decode(data, offset, base, end, depth):
        if depth > MAX_NESTING:
            raise WireError("nesting too deep")
        offset += -(offset - base) % 4
        if offset + 4 > end:
            raise WireError("truncated message")
        (length,) = _U32(data, offset)
        offset += 4
        offset += -(offset - base) % alignment
        stop = offset + length
        if stop > end:
            raise WireError("truncated message")
        items = []
        if element[0] == "{":
            while offset < stop:
                offset += -(offset - base) % 8
                key, offset = decode_key(data, offset, base, stop, depth + 1)
                value, offset = decode_value(data, offset, base, stop, depth + 1)
                items.append((key, value))
        else:
            while offset < stop:
                item, offset = decode_item(data, offset, base, stop, depth + 1)
                items.append(item)
        return items, offset

    return decode


def _struct_decoder(parts):
    decoders = tuple(_decoder(part) for part in parts)

    def decode(data, offset, base, end, depth):
        if depth > MAX_NESTING:
            raise WireError("nesting too deep")
        offset += -(offset - base) % 8
        values = []
        for decode_part in decoders:
            value, offset = decode_part(data, offset, base, end, depth + 1)
            values.append(value)
        return tuple(values), offset

    return decode


@functools.lru_cache(maxsize=256)
def _decoder(kind):
    code = kind[0]
    if code in _FIXED:
        return _fixed_decoder(code)
    if code in "so":
        return _decode_string
    if code == "g":
        return _decode_signature
    if code == "v":
        return _decode_variant
    if code == "a":
        return _array_decoder(kind[1:])
    if code == "(":
        return _struct_decoder(_split(kind[1:-1]))
    raise WireError("unexpected type %r" % kind)


def _parse(data, offset, end):
    """Decodes one whole message at data[offset:end] → (type, reply serial, error name, values)."""
    if data[offset] != ord("l"):
        raise WireError("big-endian messages are not supported")
    kind = data[offset + 1]
    body_length, _serial, fields_length = struct.unpack_from("<III", data, offset + 4)
    base = offset
    position = offset + 16
    fields_end = position + fields_length
    if fields_end > end:
        raise WireError("truncated message")
    reply_serial, error_name, signature = None, None, ""
    while position < fields_end:
        position += -(position - base) % 8
        if position >= fields_end:
            break
        code = data[position]
        position += 1
        if code == 5 and data[position : position + 3] == b"\x01u\0":
            # The reply serial, the field every answer has: signature "u", then the value at the
            # next multiple of 4 (the field starts at a multiple of 8).
            if position + 7 > fields_end:
                raise WireError("truncated message")
            (reply_serial,) = _U32(data, position + 3)
            position += 7
            continue
        value, position = _decode_variant(data, position, base, fields_end, 0)
        if code == 5:
            reply_serial = value
        elif code == 4:
            error_name = value
        elif code == 8:
            signature = value
    body_start = offset + 16 + fields_length + (-(16 + fields_length) % 8)
    body_end = body_start + body_length
    if body_end > end:
        raise WireError("truncated message")
    values = []
    position = body_start
    if signature:
        for part in _split(signature):
            value, position = _decoder(part)(data, position, base, body_end, 0)
            values.append(value)
    return kind, reply_serial, error_name, values


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
                    kind, reply_serial, error_name, values = _parse(data, offset, offset + total)
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
