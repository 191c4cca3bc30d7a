"""A pyautogui-compatible module for the osharm local desktop (X11 XTest through python3-xlib).

The real pyautogui is not packaged for Debian. This module implements the part of its API that
OSWorld-style agents and task configs call, with the same names, arguments and defaults:
click, doubleClick, tripleClick, rightClick, middleClick, moveTo, moveRel/move, dragTo, dragRel/drag,
mouseDown, mouseUp, scroll, hscroll, vscroll, write/typewrite, press, hotkey, keyDown, keyUp, hold,
position, size, onScreen, FAILSAFE, PAUSE, sleep. Image search (locateOnScreen) and message boxes
are not available and raise NotImplementedError.
"""

import collections
import contextlib
import time as _time

__version__ = "0.9.54-osharm"

Point = collections.namedtuple("Point", "x y")
Size = collections.namedtuple("Size", "width height")

FAILSAFE = True
FAILSAFE_POINTS = [(0, 0)]
PAUSE = 0.1
MINIMUM_DURATION = 0.1
MINIMUM_SLEEP = 0.05
DARWIN_CATCH_UP_TIME = 0.01

LEFT = "left"
MIDDLE = "middle"
RIGHT = "right"
PRIMARY = "primary"
SECONDARY = "secondary"


class PyAutoGUIException(Exception):
    pass


class FailSafeException(PyAutoGUIException):
    pass


class ImageNotFoundException(PyAutoGUIException):
    pass


_display = None


def _d():
    global _display
    if _display is None:
        from Xlib import display

        _display = display.Display()
    return _display


def _root():
    return _d().screen().root


def _fake(event_type, detail=0, x=0, y=0):
    from Xlib.ext import xtest

    if event_type == "motion":
        from Xlib import X

        xtest.fake_input(_d(), X.MotionNotify, x=int(x), y=int(y))
    else:
        xtest.fake_input(_d(), event_type, detail)


def _sync():
    _d().sync()


# --------------------------------------------------------------------------------------------
# Screen and pointer


def size():
    screen = _d().screen()
    return Size(screen.width_in_pixels, screen.height_in_pixels)


resolution = size


def position(x=None, y=None):
    pointer = _root().query_pointer()
    return Point(int(x) if x is not None else pointer.root_x, int(y) if y is not None else pointer.root_y)


def onScreen(x, y=None):
    x, y = _unpack_xy(x, y)
    width, height = size()
    return 0 <= x < width and 0 <= y < height


def _failsafe_check():
    if FAILSAFE and tuple(position()) in [tuple(p) for p in FAILSAFE_POINTS]:
        raise FailSafeException(
            "PyAutoGUI fail-safe triggered from mouse moving to a corner of the screen. "
            "To disable this fail-safe, set pyautogui.FAILSAFE to False."
        )


def _auto_pause(pause=None, _pause=True):
    if not _pause:
        return
    delay = PAUSE if pause is None else pause
    if delay:
        _time.sleep(delay)


def _unpack_xy(x, y):
    if isinstance(x, str):
        raise NotImplementedError("pyautogui image search is not available on the osharm local desktop")
    if isinstance(x, (tuple, list)) and y is None:
        if len(x) != 2:
            raise PyAutoGUIException("The x argument must be a sequence of two numbers")
        x, y = x
    current = None
    if x is None or y is None:
        current = position()
    return (
        int(round(current.x if x is None else float(x))),
        int(round(current.y if y is None else float(y))),
    )


def _normalize_button(button):
    mapping = {
        "left": 1, "primary": 1, 1: 1, "1": 1,
        "middle": 2, 2: 2, "2": 2,
        "right": 3, "secondary": 3, 3: 3, "3": 3,
    }
    key = button.lower() if isinstance(button, str) else button
    if key not in mapping:
        raise PyAutoGUIException(
            'button argument must be one of "left", "middle", "right", "primary", "secondary", 1, 2, 3'
        )
    return mapping[key]


def _move_now(x, y):
    width, height = size()
    x = max(0, min(width - 1, int(x)))
    y = max(0, min(height - 1, int(y)))
    _fake("motion", x=x, y=y)
    _sync()


def linear(n):
    return n


def _glide(x, y, duration, tween=linear):
    if duration is None or duration <= MINIMUM_DURATION:
        _move_now(x, y)
        return
    start = position()
    steps = max(2, int(duration / MINIMUM_SLEEP))
    pause = duration / steps
    for step in range(1, steps + 1):
        fraction = tween(step / steps)
        _move_now(start.x + (x - start.x) * fraction, start.y + (y - start.y) * fraction)
        _time.sleep(pause)


def moveTo(x=None, y=None, duration=0.0, tween=linear, logScreenshot=False, _pause=True):
    _failsafe_check()
    x, y = _unpack_xy(x, y)
    _glide(x, y, duration, tween)
    _auto_pause(_pause=_pause)


def moveRel(xOffset=None, yOffset=None, duration=0.0, tween=linear, logScreenshot=False, _pause=True):
    _failsafe_check()
    if isinstance(xOffset, (tuple, list)) and yOffset is None:
        xOffset, yOffset = xOffset
    current = position()
    _glide(current.x + int(xOffset or 0), current.y + int(yOffset or 0), duration, tween)
    _auto_pause(_pause=_pause)


move = moveRel


def mouseDown(x=None, y=None, button=PRIMARY, duration=0.0, tween=linear, logScreenshot=None, _pause=True):
    from Xlib import X

    _failsafe_check()
    if x is not None or y is not None:
        _glide(*_unpack_xy(x, y), duration, tween)
    _fake(X.ButtonPress, _normalize_button(button))
    _sync()
    _auto_pause(_pause=_pause)


def mouseUp(x=None, y=None, button=PRIMARY, duration=0.0, tween=linear, logScreenshot=None, _pause=True):
    from Xlib import X

    _failsafe_check()
    if x is not None or y is not None:
        _glide(*_unpack_xy(x, y), duration, tween)
    _fake(X.ButtonRelease, _normalize_button(button))
    _sync()
    _auto_pause(_pause=_pause)


def click(x=None, y=None, clicks=1, interval=0.0, button=PRIMARY, duration=0.0, tween=linear,
          logScreenshot=None, _pause=True):
    from Xlib import X

    _failsafe_check()
    if x is not None or y is not None:
        _glide(*_unpack_xy(x, y), duration, tween)
    number = _normalize_button(button)
    for index in range(int(clicks)):
        _fake(X.ButtonPress, number)
        _fake(X.ButtonRelease, number)
        _sync()
        if interval and index < int(clicks) - 1:
            _time.sleep(interval)
    _auto_pause(_pause=_pause)


def leftClick(x=None, y=None, interval=0.0, duration=0.0, tween=linear, logScreenshot=None, _pause=True):
    click(x, y, 1, interval, LEFT, duration, tween, logScreenshot, _pause)


def rightClick(x=None, y=None, interval=0.0, duration=0.0, tween=linear, logScreenshot=None, _pause=True):
    click(x, y, 1, interval, RIGHT, duration, tween, logScreenshot, _pause)


def middleClick(x=None, y=None, interval=0.0, duration=0.0, tween=linear, logScreenshot=None, _pause=True):
    click(x, y, 1, interval, MIDDLE, duration, tween, logScreenshot, _pause)


def doubleClick(x=None, y=None, interval=0.0, button=LEFT, duration=0.0, tween=linear,
                logScreenshot=None, _pause=True):
    click(x, y, 2, interval, button, duration, tween, logScreenshot, _pause)


def tripleClick(x=None, y=None, interval=0.0, button=LEFT, duration=0.0, tween=linear,
                logScreenshot=None, _pause=True):
    click(x, y, 3, interval, button, duration, tween, logScreenshot, _pause)


def dragTo(x=None, y=None, duration=0.0, tween=linear, button=PRIMARY, logScreenshot=None, _pause=True,
           mouseDownUp=True):
    from Xlib import X

    _failsafe_check()
    x, y = _unpack_xy(x, y)
    number = _normalize_button(button)
    if mouseDownUp:
        _fake(X.ButtonPress, number)
        _sync()
    # Move in steps even without a duration so that applications see a drag, not a jump.
    _glide(x, y, max(duration or 0.0, MINIMUM_DURATION + 0.05), tween)
    if mouseDownUp:
        _fake(X.ButtonRelease, number)
        _sync()
    _auto_pause(_pause=_pause)


def dragRel(xOffset=0, yOffset=0, duration=0.0, tween=linear, button=PRIMARY, logScreenshot=None,
            _pause=True, mouseDownUp=True):
    if isinstance(xOffset, (tuple, list)):
        xOffset, yOffset = xOffset
    current = position()
    dragTo(current.x + int(xOffset), current.y + int(yOffset), duration, tween, button, logScreenshot,
           _pause, mouseDownUp)


drag = dragRel


def _scroll_buttons(clicks, positive_button, negative_button, x, y):
    from Xlib import X

    _failsafe_check()
    if x is not None or y is not None:
        _move_now(*_unpack_xy(x, y))
    amount = int(clicks)
    number = positive_button if amount > 0 else negative_button
    for _ in range(abs(amount)):
        _fake(X.ButtonPress, number)
        _fake(X.ButtonRelease, number)
    _sync()


def scroll(clicks, x=None, y=None, logScreenshot=None, _pause=True):
    """Positive clicks scroll up, negative down (X buttons 4 and 5)."""
    _scroll_buttons(clicks, 4, 5, x, y)
    _auto_pause(_pause=_pause)


vscroll = scroll


def hscroll(clicks, x=None, y=None, logScreenshot=None, _pause=True):
    """Positive clicks scroll right, negative left (X buttons 7 and 6)."""
    _scroll_buttons(clicks, 7, 6, x, y)
    _auto_pause(_pause=_pause)


# --------------------------------------------------------------------------------------------
# Keyboard

_NAMED_KEYS = {
    "\n": "Return", "\r": "Return", "enter": "Return", "return": "Return",
    "\t": "Tab", "tab": "Tab", " ": "space", "space": "space",
    "\b": "BackSpace", "backspace": "BackSpace", "esc": "Escape", "escape": "Escape",
    "delete": "Delete", "del": "Delete", "insert": "Insert", "home": "Home", "end": "End",
    "pageup": "Prior", "pgup": "Prior", "prior": "Prior", "pagedown": "Next", "pgdn": "Next", "next": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "shift": "Shift_L", "shiftleft": "Shift_L", "shiftright": "Shift_R",
    "ctrl": "Control_L", "ctrlleft": "Control_L", "ctrlright": "Control_R", "control": "Control_L",
    "alt": "Alt_L", "altleft": "Alt_L", "altright": "Alt_R", "option": "Alt_L", "optionleft": "Alt_L",
    "optionright": "Alt_R", "altgr": "ISO_Level3_Shift",
    "win": "Super_L", "winleft": "Super_L", "winright": "Super_R", "super": "Super_L",
    "command": "Super_L", "cmd": "Super_L", "meta": "Meta_L",
    "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock",
    "printscreen": "Print", "prtsc": "Print", "prtscr": "Print", "prntscrn": "Print", "print": "Print",
    "pause": "Pause", "apps": "Menu", "menu": "Menu", "clear": "Clear", "select": "Select",
    "execute": "Execute", "help": "Help", "sleep": "XF86Sleep",
    "volumeup": "XF86AudioRaiseVolume", "volumedown": "XF86AudioLowerVolume", "volumemute": "XF86AudioMute",
    "playpause": "XF86AudioPlay", "stop": "XF86AudioStop", "nexttrack": "XF86AudioNext",
    "prevtrack": "XF86AudioPrev", "browserback": "XF86Back", "browserforward": "XF86Forward",
    "browserrefresh": "XF86Refresh", "browserhome": "XF86HomePage", "browsersearch": "XF86Search",
    "launchmail": "XF86Mail",
    "add": "KP_Add", "subtract": "KP_Subtract", "multiply": "KP_Multiply", "divide": "KP_Divide",
    "decimal": "KP_Decimal", "separator": "KP_Separator",
    "!": "exclam", '"': "quotedbl", "#": "numbersign", "$": "dollar", "%": "percent", "&": "ampersand",
    "'": "apostrophe", "(": "parenleft", ")": "parenright", "*": "asterisk", "+": "plus", ",": "comma",
    "-": "minus", ".": "period", "/": "slash", ":": "colon", ";": "semicolon", "<": "less",
    "=": "equal", ">": "greater", "?": "question", "@": "at", "[": "bracketleft", "\\": "backslash",
    "]": "bracketright", "^": "asciicircum", "_": "underscore", "`": "grave", "{": "braceleft",
    "|": "bar", "}": "braceright", "~": "asciitilde",
}
for _n in range(1, 25):
    _NAMED_KEYS["f%d" % _n] = "F%d" % _n
for _n in range(10):
    _NAMED_KEYS["num%d" % _n] = "KP_%d" % _n

KEYBOARD_KEYS = sorted(set(_NAMED_KEYS) | set("abcdefghijklmnopqrstuvwxyz0123456789"))
KEY_NAMES = KEYBOARD_KEYS

_held_remaps = {}


def isValidKey(key):
    return _keysym_for(key) != 0


def _keysym_for(key):
    from Xlib import XK

    if len(key) > 1:
        key = key.lower()
    name = _NAMED_KEYS.get(key)
    if name is not None:
        return XK.string_to_keysym(name)
    if len(key) == 1:
        code = ord(key)
        keysym = XK.string_to_keysym(key)
        if keysym:
            return keysym
        if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
            return code
        return 0x01000000 + code
    return XK.string_to_keysym(key) or XK.string_to_keysym(key.capitalize())


def _keycode_for(keysym):
    """(keycode, needs_shift, remapped) for a keysym, remapping a spare keycode when needed."""
    d = _d()
    best = None
    for keycode, index in d.keysym_to_keycodes(keysym):
        if index in (0, 1) and (best is None or index < best[1]):
            best = (keycode, index)
    if best is not None:
        return best[0], best[1] == 1, False
    # Not on the keyboard (e.g. 'é' or '€'): bind it to an unused keycode for the key press,
    # as xdotool does.
    first = d.display.info.min_keycode
    count = d.display.info.max_keycode - first + 1
    mapping = d.get_keyboard_mapping(first, count)
    for offset, syms in enumerate(mapping):
        if not any(syms):
            keycode = first + offset
            d.change_keyboard_mapping(keycode, [(keysym,) * len(syms)])
            d.sync()
            _time.sleep(0.01)
            return keycode, False, True
    return None, False, False


def _release_remap(keycode):
    d = _d()
    width = len(d.get_keyboard_mapping(keycode, 1)[0])
    d.change_keyboard_mapping(keycode, [(0,) * width])
    d.sync()


def _key_event(key, down):
    from Xlib import X, XK

    keysym = _keysym_for(key)
    if not keysym:
        return
    if not down and key in _held_remaps:
        keycode, needs_shift, remapped = _held_remaps.pop(key)
    else:
        keycode, needs_shift, remapped = _keycode_for(keysym)
    if keycode is None:
        return
    shift = _d().keysym_to_keycode(XK.string_to_keysym("Shift_L"))
    if down:
        if needs_shift:
            _fake(X.KeyPress, shift)
        _fake(X.KeyPress, keycode)
        if needs_shift:
            _fake(X.KeyRelease, shift)
        if remapped:
            _held_remaps[key] = (keycode, needs_shift, remapped)
    else:
        _fake(X.KeyRelease, keycode)
        if remapped:
            _sync()
            _time.sleep(0.01)
            _release_remap(keycode)
    _sync()


def _tap(key):
    from Xlib import X, XK

    keysym = _keysym_for(key)
    if not keysym:
        return
    keycode, needs_shift, remapped = _keycode_for(keysym)
    if keycode is None:
        return
    shift = _d().keysym_to_keycode(XK.string_to_keysym("Shift_L"))
    if needs_shift:
        _fake(X.KeyPress, shift)
    _fake(X.KeyPress, keycode)
    _fake(X.KeyRelease, keycode)
    if needs_shift:
        _fake(X.KeyRelease, shift)
    _sync()
    if remapped:
        _time.sleep(0.01)
        _release_remap(keycode)


def keyDown(key, logScreenshot=None, _pause=True):
    _failsafe_check()
    _key_event(str(key), True)
    _auto_pause(_pause=_pause)


def keyUp(key, logScreenshot=None, _pause=True):
    _failsafe_check()
    _key_event(str(key), False)
    _auto_pause(_pause=_pause)


def press(keys, presses=1, interval=0.0, logScreenshot=None, _pause=True):
    _failsafe_check()
    if isinstance(keys, str):
        keys = [keys] if len(keys) > 0 else []
    keys = [str(k) for k in keys]
    for index in range(int(presses)):
        for key in keys:
            _tap(key)
        if interval and index < int(presses) - 1:
            _time.sleep(interval)
    _auto_pause(_pause=_pause)


def typewrite(message, interval=0.0, logScreenshot=None, _pause=True):
    """Types a string character by character, or presses a list of key names in order."""
    _failsafe_check()
    items = list(message) if isinstance(message, str) else [str(k) for k in message]
    for index, key in enumerate(items):
        _tap(key)
        if interval and index < len(items) - 1:
            _time.sleep(interval)
    _auto_pause(_pause=_pause)


write = typewrite


def hotkey(*args, **kwargs):
    """Presses the keys in order and releases them in reverse order (also accepts one list)."""
    interval = float(kwargs.get("interval", 0.0))
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    keys = [str(k) for k in args]
    _failsafe_check()
    for key in keys:
        _key_event(key, True)
        if interval:
            _time.sleep(interval)
    for key in reversed(keys):
        _key_event(key, False)
        if interval:
            _time.sleep(interval)
    _auto_pause(_pause=kwargs.get("_pause", True))


@contextlib.contextmanager
def hold(keys, logScreenshot=None, _pause=True):
    if isinstance(keys, str):
        keys = [keys]
    for key in keys:
        _key_event(str(key), True)
    try:
        yield
    finally:
        for key in reversed(keys):
            _key_event(str(key), False)
        _auto_pause(_pause=_pause)


def sleep(seconds):
    _time.sleep(seconds)


def countdown(seconds):
    for remaining in range(int(seconds), 0, -1):
        print(remaining, end=" ", flush=True)
        _time.sleep(1)
    print()


def _unavailable(*_args, **_kwargs):
    raise NotImplementedError("not available on the osharm local desktop (no image search or dialogs)")


screenshot = locateOnScreen = locateAllOnScreen = locateCenterOnScreen = locate = locateAll = _unavailable
pixel = pixelMatchesColor = alert = confirm = prompt = password = _unavailable
