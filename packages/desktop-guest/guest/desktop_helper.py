#!/usr/bin/python3
"""X11 and AT-SPI helper of the osharm guest server.

Runs as one long-lived process under Debian's /usr/bin/python3 (python3-xlib, python3-pyatspi) and
answers requests from the guest server over stdin/stdout:

  request:  one JSON line  {"id": 1, "cmd": "screenshot", ...arguments}
  response: one JSON line  {"id": 1, "ok": true, "data": ...}                      (JSON answers)
            or             {"id": 1, "ok": true, "bytes": N}  followed by N bytes  (binary answers)
            or             {"id": 1, "ok": false, "error": "message"}

The guest server starts two of these: one for screenshots and pointer queries, one for the
accessibility tree, so that a slow or hung application cannot delay screenshots. The server kills
and restarts a helper that misses its deadline.
"""

import ctypes
import json
import os
import struct
import sys
import time
import zlib


def _not_dumpable():
    """Other processes of the desktop user (the agent's) may not ptrace this helper or open its
    pipes through /proc/PID/fd (PR_SET_DUMPABLE = 4)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


_not_dumpable()

from a11y_walk import MAX_DEPTH, MAX_WIDTH, accessibility  # noqa: E402  (after the dumpable flag)

_display = None
_xfixes_ready = False


def display():
    global _display, _xfixes_ready
    if _display is None:
        from Xlib import display as xdisplay

        _display = xdisplay.Display()
        try:
            # Without the version handshake XFixes requests fail (python-xlib reports BadRRCrtc).
            _display.xfixes_query_version()
            _xfixes_ready = True
        except Exception:
            _xfixes_ready = False
    return _display


# --------------------------------------------------------------------------------------------
# Screen, pointer, windows


def screen_size(_request):
    screen = display().screen()
    return {"width": screen.width_in_pixels, "height": screen.height_in_pixels}


def cursor_position(_request):
    pointer = display().screen().root.query_pointer()
    return [pointer.root_x, pointer.root_y]


def _png_chunk(kind, data):
    chunk = kind + data
    return struct.pack(">I", len(data)) + chunk + struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)


def _encode_png(width, height, rgb, level):
    stride = width * 3
    raw = b"".join(b"\0" + rgb[row * stride : (row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(raw, level))
        + _png_chunk(b"IEND", b"")
    )


def _draw_cursor(rgb, width, height):
    """Blends the current X cursor (XFixes image, premultiplied ARGB) into the RGB buffer."""
    if not _xfixes_ready:
        return
    try:
        from Xlib import X  # noqa: F401  (keeps the import error explicit)

        root = display().screen().root
        cursor = display().xfixes_get_cursor_image(root)
    except Exception:
        return
    cw, ch = cursor.width, cursor.height
    left, top = cursor.x - cursor.xhot, cursor.y - cursor.yhot
    pixels = cursor.cursor_image
    for cy in range(ch):
        y = top + cy
        if y < 0 or y >= height:
            continue
        for cx in range(cw):
            x = left + cx
            if x < 0 or x >= width:
                continue
            argb = pixels[cy * cw + cx]
            alpha = (argb >> 24) & 0xFF
            if alpha == 0:
                continue
            offset = (y * width + x) * 3
            inverse = 255 - alpha
            rgb[offset] = min(255, ((argb >> 16) & 0xFF) + rgb[offset] * inverse // 255)
            rgb[offset + 1] = min(255, ((argb >> 8) & 0xFF) + rgb[offset + 1] * inverse // 255)
            rgb[offset + 2] = min(255, (argb & 0xFF) + rgb[offset + 2] * inverse // 255)


def screenshot(request):
    from Xlib import X

    screen = display().screen()
    width, height = screen.width_in_pixels, screen.height_in_pixels
    image = screen.root.get_image(0, 0, width, height, X.ZPixmap, 0xFFFFFFFF)
    data = image.data
    if image.depth not in (24, 32) or len(data) < width * height * 4:
        raise RuntimeError("unsupported X image format (depth %d)" % image.depth)
    rgb = bytearray(width * height * 3)
    rgb[0::3] = data[2::4]
    rgb[1::3] = data[1::4]
    rgb[2::3] = data[0::4]
    if request.get("cursor", True):
        _draw_cursor(rgb, width, height)
    return _encode_png(width, height, bytes(rgb), int(request.get("level", 1)))


def window_size(request):
    """Size of the first managed window whose WM_CLASS matches (upstream's /window_size)."""
    from Xlib import X

    wanted = str(request.get("class", "")).lower()
    d = display()
    root = d.screen().root
    prop = root.get_full_property(d.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
    for window_id in prop.value if prop else []:
        try:
            window = d.create_resource_object("window", window_id)
            wm_class = window.get_wm_class()
            if not wm_class or wanted not in [name.lower() for name in wm_class]:
                continue
            geometry = window.get_geometry()
            return {"width": geometry.width, "height": geometry.height}
        except Exception:
            continue
    return None


def set_wallpaper(request):
    """Paints an image (decoded by ffmpeg, scaled to the screen) as the root window background."""
    import subprocess

    from Xlib import X

    d = display()
    screen = d.screen()
    width, height = screen.width_in_pixels, screen.height_in_pixels
    decoded = subprocess.run(
        [
            "ffmpeg", "-loglevel", "error", "-i", request["path"], "-frames:v", "1",
            "-vf", "scale=%d:%d" % (width, height), "-f", "rawvideo", "-pix_fmt", "bgr0", "-",
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, check=False,
    )
    if decoded.returncode != 0 or len(decoded.stdout) != width * height * 4:
        raise RuntimeError("could not decode the image: " + decoded.stderr.decode(errors="replace")[-300:])
    root = screen.root
    pixmap = root.create_pixmap(width, height, screen.root_depth)
    gc = pixmap.create_gc()
    rows = max(1, (256 * 1024) // (width * 4))
    for top in range(0, height, rows):
        count = min(rows, height - top)
        pixmap.put_image(gc, 0, top, width, count, X.ZPixmap, screen.root_depth, 0,
                         decoded.stdout[top * width * 4 : (top + count) * width * 4])
    root.change_attributes(background_pixmap=pixmap)
    root.clear_area(0, 0, width, height)
    d.sync()
    return True


# --------------------------------------------------------------------------------------------
# Accessibility tree (a11y_walk.py) and terminal text


def terminal(request):
    """Text of the focused terminal widget of an active gnome-terminal window (upstream's rule)."""
    import pyatspi

    deadline = time.monotonic() + float(request.get("deadline_ms", 5000)) / 1000.0
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is None or app.name != "gnome-terminal-server":
            continue
        for frame_index in range(app.childCount):
            frame = app.getChildAtIndex(frame_index)
            if frame is None or not frame.getState().contains(pyatspi.STATE_ACTIVE):
                continue
            focused = []
            stack = [(frame, 0)]
            while stack:
                if time.monotonic() > deadline:
                    return None
                current, depth = stack.pop()
                try:
                    if current.getRole() == pyatspi.ROLE_TERMINAL and current.getState().contains(
                        pyatspi.STATE_FOCUSED
                    ):
                        focused.append(current)
                    if depth < MAX_DEPTH and current.getState().contains(pyatspi.STATE_SHOWING):
                        for child_index in range(min(current.childCount, MAX_WIDTH)):
                            child = current.getChildAtIndex(child_index)
                            if child is not None:
                                stack.append((child, depth + 1))
                except Exception:
                    continue
            if len(focused) == 1:
                text = focused[0].queryText()
                return text.getText(0, text.characterCount).rstrip()
    return None


def warm_accessibility(_request):
    """Connects to the AT-SPI bus (D-Bus activation starts it) ahead of the first walk."""
    import pyatspi

    return pyatspi.Registry.getDesktop(0).childCount


COMMANDS = {
    "ping": lambda request: "pong",
    "warm_accessibility": warm_accessibility,
    "screen_size": screen_size,
    "cursor_position": cursor_position,
    "screenshot": screenshot,
    "window_size": window_size,
    "set_wallpaper": set_wallpaper,
    "accessibility": accessibility,
    "terminal": terminal,
}


def main():
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    # Anything a library prints must not corrupt the protocol stream.
    sys.stdout = sys.stderr
    for line in stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            result = COMMANDS[request["cmd"]](request)
            if isinstance(result, (bytes, bytearray)):
                stdout.write(json.dumps({"id": request_id, "ok": True, "bytes": len(result)}).encode() + b"\n")
                stdout.write(result)
            else:
                stdout.write(json.dumps({"id": request_id, "ok": True, "data": result}).encode() + b"\n")
        except Exception as error:  # reported to the server, which turns it into a 500
            message = "%s: %s" % (type(error).__name__, error)
            stdout.write(json.dumps({"id": request_id, "ok": False, "error": message}).encode() + b"\n")
        stdout.flush()


if __name__ == "__main__":
    main()
