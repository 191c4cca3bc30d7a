"""D-Bus wire format (little endian) for atspi_wire.py: method calls with `i`/`u`/`s` arguments out,
messages of any signature in.

Every message read may come from a hostile process: sizes, nesting and signatures are bounded, and
anything malformed raises WireError (nothing is read past the message).
"""

import functools
import struct

MAX_NESTING = 64


class WireError(Exception):
    """The connection failed or the peer sent something that is not D-Bus."""


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


def parse(data, offset, end):
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
