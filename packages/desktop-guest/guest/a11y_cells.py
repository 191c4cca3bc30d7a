"""The visible cells of a large table (a Calc sheet), read in pipelined batches (issue 16).

The walker in a11y_walk.py reads a node with about a dozen blocking libatspi calls; for the
≈ 1,350 cells of a full-screen sheet that is most of the walk, and most of soffice's share of it is
the cost of waking up for each message. Here the same facts are asked for with fewer calls, many at
a time, on the application's peer-to-peer socket (atspi_wire.py):

  per batch:  Table.GetAccessibleAt for every cell
  per cell:   GetInterfaces, Properties.GetAll(Accessible) (name, attributes, child count),
              GetState, Component.GetExtents, Text.GetText, Properties.GetAll(Value), GetRole

and the element is written by the walker's own element_xml, so the XML is the one the libatspi path
writes, byte for byte (a11y-cells.test.ts compares both on a sheet with varied content). Where a cell
is not a plain leaf — it has children, actions, a role libatspi would look up by name, or lives in
another process — that cell is read through the walker's libatspi path instead.

Matching libatspi exactly:
  - states: libatspi lists the set bits of the 64-bit state set in ascending order;
  - object attributes: libatspi returns a GHashTable, whose iteration order is the order of the XML
    attributes. GLib.VariantDict keeps its entries in a GHashTable with the same string hash and
    equality, so inserting the keys in the order they came gives the same iteration order; it is
    computed once per key sequence (Calc cells all have the same keys);
  - role: libatspi asks GetRole and names it with atspi_role_get_name (Atspi.role_get_name here);
  - values: libatspi reads the four Value properties one by one; GetAll returns the same doubles.
"""

import time

import atspi_wire

ACCESSIBLE = "org.a11y.atspi.Accessible"
PROPERTIES = "org.freedesktop.DBus.Properties"
NULL_PATH = "/org/a11y/atspi/null"
PREFIX = "org.a11y.atspi."
BATCH = 150
DETAIL_CALLS = 7
VALUE_KEYS = (("value", "CurrentValue"), ("min", "MinimumValue"), ("max", "MaximumValue"), ("step", "MinimumIncrement"))


def _detail_calls(path):
    return (
        (path, ACCESSIBLE, "GetInterfaces", "", ()),
        (path, PROPERTIES, "GetAll", "s", (ACCESSIBLE,)),
        (path, ACCESSIBLE, "GetState", "", ()),
        (path, "org.a11y.atspi.Component", "GetExtents", "u", (0,)),  # ATSPI_COORD_TYPE_SCREEN
        (path, "org.a11y.atspi.Text", "GetText", "ii", (0, -1)),
        (path, PROPERTIES, "GetAll", "s", ("org.a11y.atspi.Value",)),
        (path, ACCESSIBLE, "GetRole", "", ()),
    )


def first(answer):
    """The first value of a reply, or None for an error reply or an empty one."""
    if isinstance(answer, Exception) or not answer:
        return None
    return answer[0]


_a11y_bus = []  # the helper's connection to the accessibility bus, kept between walks


def app_bus_address(bus_name, deadline):
    """The peer-to-peer address of the application `bus_name` (what libatspi connects to)."""
    from gi.repository import Gio, GLib

    timeout = max(1, int((deadline - time.monotonic()) * 1000))
    if not _a11y_bus or _a11y_bus[0].is_closed():
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        address = session.call_sync(
            "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None, GLib.VariantType("(s)"),
            Gio.DBusCallFlags.NONE, timeout, None,
        ).unpack()[0]
        _a11y_bus[:] = [
            Gio.DBusConnection.new_for_address_sync(
                address,
                Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
                None, None,
            )
        ]
    return _a11y_bus[0].call_sync(
        bus_name, "/org/a11y/atspi/accessible/root", PREFIX + "Application",
        "GetApplicationBusAddress", None, GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, timeout, None,
    ).unpack()[0]


class WireCells:
    """Reads table cells on one connection for one walk.

    fallback(row, column, depth, flag, out) reads one cell the libatspi way (returns whether the table
    had an object there)."""

    # Per helper process: the attribute order for a key sequence and the names of a state set,
    # both pure functions of their keys.
    _orders = {}
    _states = {}

    def __init__(self, walker, connection, bus_name, fallback):
        self.walker = walker
        self.connection = connection
        self.bus_name = bus_name
        self.fallback = fallback

    @classmethod
    def open(cls, walker, table):
        """A reader for the libatspi table `table`, or None when its application cannot be reached
        this way (the walker then reads the cells through libatspi)."""
        try:
            bus_name = table.app.bus_name
            address = app_bus_address(bus_name, walker.deadline)
            connection = atspi_wire.Connection(address, walker.deadline)
        except Exception:
            return None
        return cls(
            walker,
            connection,
            bus_name,
            lambda row, column, depth, flag, out: walker.cell_xml(table, row, column, depth, flag, out),
        )

    def close(self):
        self.connection.close()

    def _call(self, calls):
        try:
            return self.connection.call_many(calls)
        except atspi_wire.Timeout:
            self.walker.cut()

    def cells_xml(self, table_path, cells, depth, flag, out):
        """Appends the elements of the cells ([(row, column)]) of the table at `table_path`, at most
        walker.MAX_TABLE_CELLS of them."""
        walker = self.walker
        emitted = 0
        for start in range(0, len(cells), BATCH):
            walker.check_deadline()
            if emitted >= walker.MAX_TABLE_CELLS:
                return
            batch = cells[start : start + BATCH]
            refs = self._call([(table_path, PREFIX + "Table", "GetAccessibleAt", "ii", cell) for cell in batch])
            found = []
            for cell, ref in zip(batch, refs):
                ref = first(ref)
                if not isinstance(ref, tuple) or len(ref) != 2 or ref[1] == NULL_PATH:
                    continue  # libatspi gives None for these: no element, not counted
                found.append((cell, ref))
            calls = []
            for _cell, (_bus, path) in found:
                calls.extend(_detail_calls(path))
            answers = self._call(calls)
            for index, (cell, (bus, _path)) in enumerate(found):
                walker.check_deadline()
                if emitted >= walker.MAX_TABLE_CELLS:
                    return
                details = answers[index * DETAIL_CALLS : (index + 1) * DETAIL_CALLS]
                try:
                    if bus == self.bus_name and self.leaf_xml(details, depth, out):
                        emitted += 1
                    elif self.fallback(cell[0], cell[1], depth, flag, out):
                        # Not a plain leaf of this application: read the libatspi way.
                        emitted += 1
                except walker.Deadline:
                    raise
                except Exception:
                    continue

    def leaf_xml(self, details, depth, out):
        """Appends one cell from its answers as node_xml would; False, with nothing appended, when the
        cell needs the libatspi path (children, actions, a role libatspi names by asking, an error)."""
        from gi.repository import Atspi

        walker = self.walker
        interfaces, accessible, state_bits, extents, text, value, role = details
        interfaces = first(interfaces)
        if not isinstance(interfaces, list):
            return False
        interfaces = {name[len(PREFIX) :] for name in interfaces if isinstance(name, str) and name.startswith(PREFIX)}
        if "Action" in interfaces:
            return False
        properties = dict(first(accessible) or ())
        if "Attributes" not in properties or "Name" not in properties:
            return False
        role = first(role)
        if not isinstance(role, int) or role == int(Atspi.Role.EXTENDED):
            return False
        try:
            raw_role = (Atspi.role_get_name(Atspi.Role(role)) or "").strip()
        except (ValueError, TypeError, OverflowError):
            return False
        states = self.state_names(first(state_bits))
        cut = walker.showing_only and raw_role not in ("application", "") and "showing" not in states
        if depth + 1 < walker.MAX_DEPTH and not cut:
            child_count = properties.get("ChildCount")
            if not isinstance(child_count, int) or child_count > 0:
                return False
        name = properties["Name"] if isinstance(properties["Name"], str) else ""
        attributes = [("name", name)]
        for state in states:
            attributes.append(("st:" + walker.xml_name(state), "true"))
        for key, item in self.ordered_attributes(properties["Attributes"]):
            if key:
                attributes.append(("attr:" + walker.xml_name(key), item))
        rect = first(extents)
        if "visible" in states and "showing" in states and "Component" in interfaces:
            if isinstance(rect, tuple) and len(rect) == 4:
                attributes.append(("cp:screencoord", "(%d, %d)" % (rect[0], rect[1])))
                attributes.append(("cp:size", "(%d, %d)" % (rect[2], rect[3])))
        content = ""
        if "Text" in interfaces:
            content = first(text)
            content = content.replace("\ufffc", "").replace("\ufffd", "") if isinstance(content, str) else ""
        if "Image" in interfaces:
            attributes.append(("image", "true"))
        if "Selection" in interfaces:
            attributes.append(("selection", "true"))
        if "Value" in interfaces:
            values = dict(first(value) or ())
            for key, property_name in VALUE_KEYS:
                number = values.get(property_name)
                if isinstance(number, float):
                    attributes.append(("val:" + key, str(number)))
        walker.nodes += 1
        walker.element_xml(raw_role, attributes, content, lambda: False, out)
        return True

    def state_names(self, bits):
        """The walker's state names for a GetState answer, in libatspi's order (ascending bits)."""
        if not isinstance(bits, list):
            return ()
        key = tuple(bits)
        names = self._states.get(key)
        if names is None:
            names = []
            for word, value in enumerate(key[:2]):
                for bit in range(32):
                    if value & (1 << bit):
                        name = self.walker.state_names.get(word * 32 + bit)
                        if name:
                            names.append(name)
            names = tuple(names)
            if len(self._states) < 1024:
                self._states[key] = names
        return names

    @classmethod
    def ordered_attributes(cls, pairs):
        """[(key, value)] in the order libatspi's GHashTable would list them."""
        if not isinstance(pairs, list):
            return []
        pairs = [pair for pair in pairs if isinstance(pair, tuple) and len(pair) == 2]
        keys = tuple(key for key, _ in pairs)
        order = cls._orders.get(keys)
        if order is None:
            from gi.repository import GLib

            table = GLib.VariantDict.new(None)
            for key in keys:
                table.insert_value(key, GLib.Variant("s", ""))
            order = tuple(table.end().keys())
            if len(cls._orders) < 1024:
                cls._orders[keys] = order
        values = dict(pairs)
        return [(key, values[key]) for key in order]

