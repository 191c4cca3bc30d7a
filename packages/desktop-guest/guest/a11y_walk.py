"""The accessibility walk: the desktop's AT-SPI tree in upstream's XML format
(reference/osworld-harness.md §1.3), for desktop_helper.py's `accessibility` command.

Walker reads nodes through libatspi, one call at a time; each application is first offered to
a11y_tree.WireTree, which reads it in pipelined batches over its peer-to-peer socket and writes the same
XML (see a11y_tree.py, a11y_cells.py); the libatspi path reads whatever that reader cannot.
"""

import re
import time


NS = [
    ("st", "https://accessibility.ubuntu.example.org/ns/state"),
    ("attr", "https://accessibility.ubuntu.example.org/ns/attributes"),
    ("cp", "https://accessibility.ubuntu.example.org/ns/component"),
    ("doc", "https://accessibility.ubuntu.example.org/ns/document"),
    ("docattr", "https://accessibility.ubuntu.example.org/ns/document/attributes"),
    ("txt", "https://accessibility.ubuntu.example.org/ns/text"),
    ("val", "https://accessibility.ubuntu.example.org/ns/value"),
    ("act", "https://accessibility.ubuntu.example.org/ns/action"),
]
MAX_DEPTH = 50
MAX_WIDTH = 1024
# A node with more children than this is never enumerated (the Calc sheet reports 2^31 - 1).
MAX_ENUMERABLE_CHILDREN = 4096
MAX_TABLE_CELLS = 4096

_XML_ESCAPES_TEXT = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord("\r"): "&#13;"}
_XML_ESCAPES_ATTR = dict(_XML_ESCAPES_TEXT)
_XML_ESCAPES_ATTR.update({ord('"'): "&quot;", ord("\n"): "&#10;", ord("\t"): "&#9;"})


_XML_SUSPECT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_clean(value):
    """Drops characters XML 1.0 cannot carry (lxml would reject them)."""
    text = str(value)
    if not _XML_SUSPECT.search(text):
        return text
    return "".join(
        ch for ch in text
        if (ch >= " " or ch in "\t\n\r") and ch not in "\ufffe\uffff" and not ("\ud800" <= ch <= "\udfff")
    )


def _xml_attr(value):
    return _xml_clean(value).translate(_XML_ESCAPES_ATTR)


def _xml_text(value):
    return _xml_clean(value).translate(_XML_ESCAPES_TEXT)


_XML_NAMES = {}


def _xml_name(name):
    cleaned = _XML_NAMES.get(name)
    if cleaned is not None:
        return cleaned
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name)
    if not cleaned or not (cleaned[0].isalpha() or cleaned[0] == "_"):
        cleaned = "_" + cleaned
    if len(_XML_NAMES) < 4096:  # state, attribute, action and role names repeat
        _XML_NAMES[name] = cleaned
    return cleaned


class Deadline(Exception):
    pass


class Walker:
    # For a11y_tree.py and a11y_cells.py, which read nodes on the walker's behalf.
    Deadline = Deadline
    MAX_DEPTH = MAX_DEPTH
    MAX_WIDTH = MAX_WIDTH
    MAX_ENUMERABLE_CHILDREN = MAX_ENUMERABLE_CHILDREN
    MAX_TABLE_CELLS = MAX_TABLE_CELLS
    xml_name = staticmethod(_xml_name)

    def __init__(self, mode, deadline_s, cell_reader="wire"):
        import pyatspi
        from gi.repository import Atspi

        self.pyatspi = pyatspi
        self.Atspi = Atspi
        self.showing_only = mode != "full"
        # "wire": the cells of a large table are read in pipelined batches (a11y_cells.py);
        # "atspi": one libatspi call at a time (the reference the wire reader is tested against).
        self.cell_reader = cell_reader
        self.deadline = time.monotonic() + deadline_s
        self.nodes = 0
        self.truncated = False
        self.batched = 0  # applications read in batches (a11y_tree.py), for tests and benchmarks
        self.state_names = {}
        for number, name in pyatspi.StateType._enum_lookup.items():
            self.state_names[number] = name.split("_", 1)[1].lower() if "_" in name else name.lower()

    def check_deadline(self):
        if time.monotonic() > self.deadline:
            self.cut()

    def cut(self):
        self.truncated = True
        raise Deadline()

    def node_xml(self, node, depth, flag, out):
        """Appends the XML of `node` and its subtree to `out`."""
        self.check_deadline()
        self.nodes += 1
        Atspi = self.Atspi
        # Plain GObject-introspection calls, one D-Bus round trip each; interfaces are read once so
        # that absent ones cost nothing (most of a walk's time is these round trips).
        try:
            interfaces = set(node.get_interfaces() or ())
        except Exception:
            interfaces = set()
        try:
            name = node.get_name() or ""
        except Exception:
            name = ""
        attributes = [("name", name)]
        states = set()
        try:
            for state in node.get_state_set().get_states():
                state_name = self.state_names.get(int(state))
                if state_name:
                    states.add(state_name)
                    attributes.append(("st:" + _xml_name(state_name), "true"))
        except Exception:
            pass
        try:
            for key, value in (node.get_attributes() or {}).items():
                if key:
                    attributes.append(("attr:" + _xml_name(key), value))
        except Exception:
            pass
        if "visible" in states and "showing" in states and "Component" in interfaces:
            try:
                rect = Atspi.Component.get_extents(node, Atspi.CoordType.SCREEN)
                attributes.append(("cp:screencoord", "(%d, %d)" % (rect.x, rect.y)))
                attributes.append(("cp:size", "(%d, %d)" % (rect.width, rect.height)))
            except Exception:
                pass
        text = ""
        if "Text" in interfaces:
            try:
                text = Atspi.Text.get_text(node, 0, -1) or ""
                text = text.replace("\ufffc", "").replace("\ufffd", "")
            except Exception:
                pass
        if "Image" in interfaces:
            attributes.append(("image", "true"))
        if "Selection" in interfaces:
            attributes.append(("selection", "true"))
        if "Value" in interfaces:
            for key, getter in (
                ("value", Atspi.Value.get_current_value),
                ("min", Atspi.Value.get_minimum_value),
                ("max", Atspi.Value.get_maximum_value),
                ("step", Atspi.Value.get_minimum_increment),
            ):
                try:
                    attributes.append(("val:" + key, str(getter(node))))
                except Exception:
                    pass
        if "Action" in interfaces:
            try:
                for index in range(Atspi.Action.get_n_actions(node)):
                    action_name = _xml_name((Atspi.Action.get_action_name(node, index) or "").replace(" ", "-"))
                    attributes.append(
                        ("act:%s_desc" % action_name, Atspi.Action.get_action_description(node, index) or "")
                    )
                    attributes.append(("act:%s_kb" % action_name, Atspi.Action.get_key_binding(node, index) or ""))
            except Exception:
                pass

        raw_role = ""
        try:
            raw_role = (node.get_role_name() or "").strip()
        except Exception:
            pass
        if not flag:
            if raw_role == "document spreadsheet":
                flag = "calc"
            elif raw_role == "application" and name == "Thunderbird":
                flag = "thunderbird"
        self.element_xml(
            raw_role, attributes, text, lambda: self.children_xml(node, depth, flag, raw_role, states, out), out
        )

    def element_xml(self, raw_role, attributes, text, children, out):
        """Appends one element: its attributes (first of each key wins), text, and what `children()`
        appends (it returns whether it appended anything)."""
        tag = _xml_name((raw_role or "unknown").replace(" ", "-"))
        out.append("<" + tag)
        seen = set()
        for key, value in attributes:
            if key in seen:
                continue
            seen.add(key)
            out.append(' %s="%s"' % (key, _xml_attr(value)))
        children_start = len(out)
        out.append(">")
        if text:
            out.append(_xml_text(text))
        try:
            has_children = children()
        except Deadline:
            # Keep what was collected: close this element, and let the callers close theirs.
            out.append("</%s>" % tag)
            raise
        if not text and not has_children:
            out[children_start] = "/>"
        else:
            out.append("</%s>" % tag)

    def children_xml(self, node, depth, flag, raw_role, states, out):
        if depth >= MAX_DEPTH:
            return False
        if self.showing_only and raw_role not in ("application", "") and "showing" not in states:
            return False
        try:
            count = node.get_child_count()
        except Exception:
            return False
        if count <= 0:
            return False
        before = len(out)
        if "manages_descendants" in states and count > MAX_ENUMERABLE_CHILDREN:
            # Calc sheets: never enumerate; read the cells on screen through the Table interface.
            self.visible_cells_xml(node, depth, flag, out)
            return len(out) > before
        if count > MAX_ENUMERABLE_CHILDREN:
            count = MAX_WIDTH
        for index in range(min(count, MAX_WIDTH)):
            self.check_deadline()
            try:
                child = node.get_child_at_index(index)
            except Exception:
                continue
            if child is None:
                continue
            try:
                self.node_xml(child, depth + 1, flag, out)
            except Deadline:
                raise
            except Exception:
                continue
        return len(out) > before

    def visible_cells_xml(self, node, depth, flag, out):
        pyatspi = self.pyatspi
        try:
            table = node.queryTable()
            x, y, w, h = node.queryComponent().getExtents(pyatspi.XY_SCREEN)
        except Exception:
            return
        if w <= 0 or h <= 0:
            return

        def cell_at(px, py):
            try:
                cell = node.queryComponent().getAccessibleAtPoint(px, py, pyatspi.XY_SCREEN)
                if cell is None:
                    return None
                index = cell.getIndexInParent()
                return table.getRowAtIndex(index), table.getColumnAtIndex(index)
            except Exception:
                return None

        first = cell_at(x + 1, y + 1)
        last = cell_at(x + w - 2, y + h - 2)
        if first is None or first[0] < 0 or first[1] < 0:
            return
        if last is None or last[0] < first[0] or last[1] < first[1]:
            last = (first[0] + 50, first[1] + 26)
        cells = [(row, column) for row in range(first[0], last[0] + 1) for column in range(first[1], last[1] + 1)]
        if self.cell_reader == "wire":
            import a11y_cells

            reader = a11y_cells.WireCells.open(self, node)
            if reader is not None:
                before, nodes = len(out), self.nodes
                try:
                    reader.cells_xml(node.path, cells, depth, flag, out)
                    return
                except a11y_cells.atspi_wire.WireError:
                    # The connection broke: read the cells the libatspi way.
                    del out[before:]
                    self.nodes = nodes
                finally:
                    reader.close()
        emitted = 0
        for row, column in cells:
            self.check_deadline()
            if emitted >= MAX_TABLE_CELLS:
                return
            if self.cell_xml(node, row, column, depth, flag, out):
                emitted += 1

    def cell_xml(self, node, row, column, depth, flag, out):
        """One cell read through libatspi, one call at a time; False when the table has no object there."""
        try:
            # GI directly: pyatspi's wrapper adds ~0.2 ms a cell.
            cell = self.Atspi.Table.get_accessible_at(node, row, column)
        except Exception:
            cell = None
        if cell is None:
            return False
        try:
            self.node_xml(cell, depth + 1, flag, out)
        except Deadline:
            raise
        except Exception:
            pass
        return True


def accessibility(request):
    import pyatspi

    walker = Walker(
        request.get("mode", "showing"),
        float(request.get("deadline_ms", 20000)) / 1000.0,
        "atspi" if request.get("cell_reader") == "atspi" else "wire",
    )
    out = ["<desktop-frame"]
    for prefix, uri in NS:
        out.append(' xmlns:%s="%s"' % (prefix, uri))
    out.append(">")
    desktop = pyatspi.Registry.getDesktop(0)
    try:
        count = desktop.childCount
    except Exception:
        count = 0
    for index in range(min(count, MAX_WIDTH)):
        part = []
        try:
            app = desktop.getChildAtIndex(index)
            if app is None:
                continue
            tree = None
            if walker.cell_reader == "wire":
                import a11y_tree

                tree = a11y_tree.WireTree.open(walker, app)
            if tree is not None:
                nodes = walker.nodes
                try:
                    tree.app_xml(1, part)
                    walker.batched += 1
                except a11y_tree.atspi_wire.WireError:
                    # The connection broke: read the application the libatspi way.
                    part, walker.nodes = [], nodes
                    walker.node_xml(app, 1, None, part)
                finally:
                    tree.close()
            else:
                walker.node_xml(app, 1, None, part)
            out.extend(part)
        except Deadline:
            # The elements cut short were closed on the way out: the partial tree stays well formed.
            out.extend(part)
            break
        except Exception:
            continue
    out.append("</desktop-frame>")
    return {"xml": "".join(out), "nodes": walker.nodes, "truncated": walker.truncated, "batched": walker.batched}
