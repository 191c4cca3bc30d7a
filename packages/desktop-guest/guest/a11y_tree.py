"""An application's accessibility tree read level by level in pipelined batches (issue 16).

The walker in a11y_walk.py reads each node with blocking libatspi calls, one after the other.
Here one application is read breadth first over its peer-to-peer socket (atspi_wire.py): every node
of a level is asked the same questions at once, then the questions that depend on the answers
(extents, text, values, actions, children), then the next level. The XML is then written depth first
by the walker's own element_xml, so it is the XML of the libatspi path (a11y-cells.test.ts compares
both). The visible cells of a large table are read by a11y_cells.py on the same connection.

What libatspi does, done alike (the calls of at-spi2-core's libatspi for each getter the walker uses):
  name, attributes, child count   Properties.GetAll(Accessible): Name, Attributes, ChildCount
  interfaces, states, role        GetInterfaces, GetState, GetRole (+ atspi_role_get_name)
  children                        GetChildren when the count is ≤ MAX_WIDTH, else GetChildAtIndex
  extents, text, values           GetExtents(SCREEN), GetText(0, -1), Properties.GetAll(Value)
  actions                         NActions, then GetName / GetDescription / GetKeyBinding per action
A child that lives in another process (an embedded application) is walked by the libatspi path.

A deadline reached between two rounds ends the read: the nodes read so far are written (a node whose
children were not read yet is written without them) and the walk is marked truncated.
"""

import atspi_wire
from a11y_cells import ACCESSIBLE, NULL_PATH, PREFIX, PROPERTIES, VALUE_KEYS, WireCells, app_bus_address, first

ACTION = PREFIX + "Action"
MAX_ACTIONS = 4096


class Node:
    __slots__ = (
        "path", "depth", "index_path", "read", "ok", "interfaces", "properties", "states", "raw_role",
        "rect", "text", "values", "actions", "n_actions", "children", "table_cells",
    )

    def __init__(self, path, depth, index_path):
        self.path = path
        self.depth = depth
        self.index_path = index_path  # child indexes from the application, for the libatspi path
        self.read = False  # its first round was answered
        self.ok = False  # readable this way (else the libatspi path reads it)
        self.rect = None
        self.text = ""
        self.values = None
        self.actions = []
        self.n_actions = 0
        self.children = []  # Node, or an index: a child in another process
        self.table_cells = None  # the XML of the visible cells when this node is a large table


class WireTree:
    """Reads one application (`app`, an Atspi.Accessible child of the desktop) for one walk."""

    def __init__(self, walker, app, connection, bus_name):
        self.walker = walker
        self.app = app
        self.connection = connection
        self.bus_name = bus_name
        self.cells = WireCells(walker, connection, bus_name, None)

    # The applications read this way: LibreOffice, whose sheets are what the batches are for. Others
    # go through libatspi: this reader asks `Properties.GetAll`, which libatspi never sends, and
    # GIMP 2.10's atk-bridge aborts the whole program on it (a libdbus check failure while it builds
    # the answer: "GIMP Crash Debug" instead of GIMP).
    APPS = ("soffice",)

    @classmethod
    def open(cls, walker, app):
        """A reader for `app`, or None when it cannot or should not be reached this way (then the
        walker reads it through libatspi)."""
        try:
            if app.name not in cls.APPS:
                return None
            bus_name = app.app.bus_name
            address = app_bus_address(bus_name, walker.deadline)
            connection = atspi_wire.Connection(address, walker.deadline)
        except Exception:
            return None
        return cls(walker, app, connection, bus_name)

    def close(self):
        self.connection.close()

    def resolve(self, index_path):
        """The libatspi object at `index_path` under the application."""
        node = self.app
        for index in index_path:
            node = node.get_child_at_index(index)
            if node is None:
                return None
        return node

    def app_xml(self, depth, out):
        """Appends the application's element and its subtree (raises walker.Deadline when cut)."""
        root = Node(self.app.path, depth, ())
        try:
            self.read_levels(root)
        except self.walker.Deadline:
            self.emit(root, out)
            raise
        self.emit(root, out)

    # ----------------------------------------------------------------------------------------
    # Reading, level by level

    def call(self, calls):
        try:
            return self.connection.call_many(calls)
        except atspi_wire.Timeout:
            self.walker.cut()

    def read_levels(self, root):
        walker = self.walker
        level = [root]
        while level:
            walker.check_deadline()
            answers = self.call([call for node in level for call in _first_round(node.path)])
            for index, node in enumerate(level):
                self.first_answers(node, answers[index * 4 : index * 4 + 4])
            level = [node for node in level if node.ok]
            calls, readers = [], []
            for node in level:
                for call, reader in self.second_round(node):
                    calls.append(call)
                    readers.append((node, reader))
            for (node, reader), answer in zip(readers, self.call(calls)):
                reader(node, answer)
            with_actions = [node for node in level if node.n_actions > 0]
            if with_actions:
                self.read_actions(with_actions)
            for node in level:
                if node.table_cells is not None:
                    self.read_table(node)
            level = [child for node in level for child in node.children if isinstance(child, Node)]

    def first_answers(self, node, answers):
        from gi.repository import Atspi

        node.read = True
        interfaces, accessible, state_bits, role = (first(answer) for answer in answers)
        if not isinstance(accessible, list) or not isinstance(interfaces, list):
            return
        node.properties = dict(accessible)
        if "Attributes" not in node.properties or "Name" not in node.properties:
            return
        node.interfaces = {name[len(PREFIX) :] for name in interfaces if isinstance(name, str) and name.startswith(PREFIX)}
        node.states = self.cells.state_names(state_bits)
        if not isinstance(role, int) or role == int(Atspi.Role.EXTENDED):
            return
        try:
            node.raw_role = (Atspi.role_get_name(Atspi.Role(role)) or "").strip()
        except (ValueError, TypeError, OverflowError):
            return
        node.ok = True

    def second_round(self, node):
        """[(call, reader)] of what depends on the first answers, as node_xml and children_xml decide."""
        walker = self.walker
        path, states, interfaces = node.path, node.states, node.interfaces
        wanted = []
        if "visible" in states and "showing" in states and "Component" in interfaces:
            wanted.append(((path, PREFIX + "Component", "GetExtents", "u", (0,)), _read_extents))
        if "Text" in interfaces:
            wanted.append(((path, PREFIX + "Text", "GetText", "ii", (0, -1)), _read_text))
        if "Value" in interfaces:
            wanted.append(((path, PROPERTIES, "GetAll", "s", (PREFIX + "Value",)), _read_values))
        if "Action" in interfaces:
            wanted.append(((path, PROPERTIES, "Get", "ss", (ACTION, "NActions")), _read_n_actions))
        if node.depth >= walker.MAX_DEPTH:
            return wanted
        if walker.showing_only and node.raw_role not in ("application", "") and "showing" not in states:
            return wanted
        count = node.properties.get("ChildCount")
        if not isinstance(count, int) or count <= 0:
            return wanted
        if "manages_descendants" in states and count > walker.MAX_ENUMERABLE_CHILDREN:
            node.table_cells = []
            return wanted
        if count > walker.MAX_ENUMERABLE_CHILDREN:
            count = walker.MAX_WIDTH
        if count <= walker.MAX_WIDTH:
            wanted.append(((path, ACCESSIBLE, "GetChildren", "", ()), self._read_children))
        else:
            for index in range(walker.MAX_WIDTH):
                wanted.append(
                    (
                        (path, ACCESSIBLE, "GetChildAtIndex", "i", (index,)),
                        lambda node, answer, index=index: self.add_child(node, index, first(answer)),
                    )
                )
        return wanted

    def _read_children(self, node, answer):
        refs = first(answer)
        if isinstance(refs, list):
            for index, ref in enumerate(refs[: self.walker.MAX_WIDTH]):
                self.add_child(node, index, ref)

    def add_child(self, node, index, ref):
        if not isinstance(ref, tuple) or len(ref) != 2 or not isinstance(ref[1], str) or ref[1] == NULL_PATH:
            return  # libatspi gives None: skipped
        if ref[0] != self.bus_name:
            node.children.append(index)
        else:
            node.children.append(Node(ref[1], node.depth + 1, node.index_path + (index,)))

    def read_actions(self, nodes):
        calls = []
        for node in nodes:
            for index in range(node.n_actions):
                for member in ("GetName", "GetDescription", "GetKeyBinding"):
                    calls.append((node.path, ACTION, member, "i", (index,)))
        answers = iter(self.call(calls))
        for node in nodes:
            stopped = False
            for _index in range(node.n_actions):
                name, description, binding = (first(next(answers)) for _ in range(3))
                # As node_xml: the first failing call ends the node's actions.
                if stopped or not isinstance(name, str) or not isinstance(description, str):
                    stopped = True
                    continue
                action = self.walker.xml_name(name.replace(" ", "-"))
                node.actions.append(("act:%s_desc" % action, description))
                if not isinstance(binding, str):
                    stopped = True
                    continue
                node.actions.append(("act:%s_kb" % action, binding))

    def read_table(self, node):
        """The visible cells of a large table, found as visible_cells_xml finds them."""
        path = node.path
        component = PREFIX + "Component"
        extents = first(self.call([(path, component, "GetExtents", "u", (0,))])[0])
        if "Table" not in node.interfaces or not isinstance(extents, tuple) or len(extents) != 4:
            return
        x, y, w, h = extents
        if w <= 0 or h <= 0:
            return
        corners = []
        for px, py in ((x + 1, y + 1), (x + w - 2, y + h - 2)):
            ref = first(self.call([(path, component, "GetAccessibleAtPoint", "iiu", (px, py, 0))])[0])
            if not isinstance(ref, tuple) or len(ref) != 2 or ref[1] == NULL_PATH or ref[0] != self.bus_name:
                corners.append(None)
                continue
            index = first(self.call([(ref[1], ACCESSIBLE, "GetIndexInParent", "", ())])[0])
            if not isinstance(index, int):
                corners.append(None)
                continue
            row, column = (
                first(answer)
                for answer in self.call(
                    [
                        (path, PREFIX + "Table", "GetRowAtIndex", "i", (index,)),
                        (path, PREFIX + "Table", "GetColumnAtIndex", "i", (index,)),
                    ]
                )
            )
            corners.append((row, column) if isinstance(row, int) and isinstance(column, int) else None)
        start, last = corners
        if start is None or start[0] < 0 or start[1] < 0:
            return
        if last is None or last[0] < start[0] or last[1] < start[1]:
            last = (start[0] + 50, start[1] + 26)
        cells = [(row, column) for row in range(start[0], last[0] + 1) for column in range(start[1], last[1] + 1)]

        def fallback(row, column, depth, flag, out):
            table = self.resolve(node.index_path)
            return table is not None and self.walker.cell_xml(table, row, column, depth, flag, out)

        self.cells.fallback = fallback
        out = node.table_cells
        self.cells.cells_xml(path, cells, node.depth, "calc", out)

    # ----------------------------------------------------------------------------------------
    # Writing, depth first

    def emit(self, node, out):
        walker = self.walker
        if not node.read:
            return  # the deadline came first
        if not node.ok:
            # An error or a role libatspi names by asking: the libatspi path reads this subtree.
            target = self.resolve(node.index_path)
            if target is not None:
                walker.node_xml(target, node.depth, None, out)
            return
        walker.nodes += 1
        walker.element_xml(node.raw_role, _attributes(walker, node), node.text, lambda: self.emit_children(node, out), out)

    def emit_children(self, node, out):
        before = len(out)
        if node.table_cells is not None:
            out.extend(node.table_cells)
            return len(out) > before
        for child in node.children:
            try:
                if isinstance(child, Node):
                    self.emit(child, out)
                else:
                    target = self.resolve(node.index_path + (child,))
                    if target is not None:
                        self.walker.node_xml(target, node.depth + 1, None, out)
            except self.walker.Deadline:
                raise
            except Exception:
                continue
        return len(out) > before


def _first_round(path):
    return (
        (path, ACCESSIBLE, "GetInterfaces", "", ()),
        (path, PROPERTIES, "GetAll", "s", (ACCESSIBLE,)),
        (path, ACCESSIBLE, "GetState", "", ()),
        (path, ACCESSIBLE, "GetRole", "", ()),
    )


def _attributes(walker, node):
    """The element's attributes in node_xml's order."""
    name = node.properties["Name"]
    attributes = [("name", name if isinstance(name, str) else "")]
    for state in node.states:
        attributes.append(("st:" + walker.xml_name(state), "true"))
    for key, value in WireCells.ordered_attributes(node.properties["Attributes"]):
        if key:
            attributes.append(("attr:" + walker.xml_name(key), value))
    if node.rect is not None:
        attributes.append(("cp:screencoord", "(%d, %d)" % (node.rect[0], node.rect[1])))
        attributes.append(("cp:size", "(%d, %d)" % (node.rect[2], node.rect[3])))
    if "Image" in node.interfaces:
        attributes.append(("image", "true"))
    if "Selection" in node.interfaces:
        attributes.append(("selection", "true"))
    if node.values is not None:
        for key, property_name in VALUE_KEYS:
            number = node.values.get(property_name)
            if isinstance(number, float):
                attributes.append(("val:" + key, str(number)))
    attributes.extend(node.actions)
    return attributes


def _read_extents(node, answer):
    rect = first(answer)
    if isinstance(rect, tuple) and len(rect) == 4:
        node.rect = rect


def _read_text(node, answer):
    text = first(answer)
    if isinstance(text, str):
        node.text = text.replace("\ufffc", "").replace("\ufffd", "")


def _read_values(node, answer):
    values = first(answer)
    node.values = dict(values) if isinstance(values, list) else {}


def _read_n_actions(node, answer):
    count = first(answer)
    if isinstance(count, int) and count > MAX_ACTIONS:
        node.ok = False  # not in one batch: the libatspi path reads this node
    elif isinstance(count, int) and count > 0:
        node.n_actions = count
