"""osharm local desktop: the polkit authority of the sandbox's system bus (org.freedesktop.PolicyKit1).

polkitd cannot decide anything here: every process of the sandbox — the desktop user's and root's of
the nested namespace that `sudo` gives — is the same uid, so the bus cannot tell root from the user
and polkitd would either allow everything or accept no authentication agent. This stand-in keeps
polkit's wire interface and its rules as Debian ships them for the actions GNOME Settings and Disks
use (`allow_active` of /usr/share/polkit-1/actions, `org.freedesktop.policykit.imply`, admin = a
member of group sudo in root's /etc), and asks for the password itself, in a dialog like GNOME
Shell's ("Authentication Required", Cancel / Authenticate). An admin authorization is kept for the
desktop's session for 5 minutes (auth_admin_keep), as on upstream's VM. Every decision is appended to
the system log (/run/osharm/system.log) the harness reads.
"""

import os
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gi  # noqa: E402

gi.require_version("Gtk", "3.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

from system_log import record  # noqa: E402

ACTIONS_DIR = "/usr/share/polkit-1/actions"
KEEP_SECONDS = 5 * 60
USER = "user"
SUDO_LIB = "/opt/osharm/desktop-guest/guest/sudo"

INTERFACE = """
<node>
  <interface name="org.freedesktop.PolicyKit1.Authority">
    <method name="EnumerateActions">
      <arg type="s" direction="in"/><arg type="a(ssssssuuua{ss})" direction="out"/>
    </method>
    <method name="CheckAuthorization">
      <arg type="(sa{sv})" direction="in"/><arg type="s" direction="in"/>
      <arg type="a{ss}" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
      <arg type="(bba{ss})" direction="out"/>
    </method>
    <method name="CancelCheckAuthorization"><arg type="s" direction="in"/></method>
    <method name="RegisterAuthenticationAgent">
      <arg type="(sa{sv})" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
    </method>
    <method name="RegisterAuthenticationAgentWithOptions">
      <arg type="(sa{sv})" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="a{sv}" direction="in"/>
    </method>
    <method name="UnregisterAuthenticationAgent">
      <arg type="(sa{sv})" direction="in"/><arg type="s" direction="in"/>
    </method>
    <method name="AuthenticationAgentResponse">
      <arg type="s" direction="in"/><arg type="(sa{sv})" direction="in"/>
    </method>
    <method name="AuthenticationAgentResponse2">
      <arg type="u" direction="in"/><arg type="s" direction="in"/><arg type="(sa{sv})" direction="in"/>
    </method>
    <method name="EnumerateTemporaryAuthorizations">
      <arg type="(sa{sv})" direction="in"/><arg type="a(ss(sa{sv})tt)" direction="out"/>
    </method>
    <method name="RevokeTemporaryAuthorizations"><arg type="(sa{sv})" direction="in"/></method>
    <method name="RevokeTemporaryAuthorizationById"><arg type="s" direction="in"/></method>
    <signal name="Changed"/>
    <property type="s" name="BackendName" access="read"/>
    <property type="s" name="BackendVersion" access="read"/>
    <property type="u" name="BackendFeatures" access="read"/>
  </interface>
</node>
"""


def load_actions():
    """action id -> {message, allow_active, implies, icon, vendor, description}."""
    actions = {}
    try:
        names = sorted(os.listdir(ACTIONS_DIR))
    except OSError:
        names = []
    for name in names:
        if not name.endswith(".policy"):
            continue
        try:
            root = ElementTree.parse(os.path.join(ACTIONS_DIR, name)).getroot()
        except (OSError, ElementTree.ParseError):
            continue
        vendor = root.findtext("vendor") or ""
        for action in root.iter("action"):
            action_id = action.get("id")
            if not action_id:
                continue
            defaults = action.find("defaults")
            implies = []
            for annotation in action.iter("annotate"):
                if annotation.get("key") == "org.freedesktop.policykit.imply":
                    implies += (annotation.text or "").split()
            actions[action_id] = {
                "description": next((e.text for e in action.findall("description") if not e.attrib), "") or "",
                "message": next((e.text for e in action.findall("message") if not e.attrib), "") or "",
                "icon": action.findtext("icon_name") or "",
                "vendor": vendor,
                "any": (defaults.findtext("allow_any") if defaults is not None else None) or "no",
                "inactive": (defaults.findtext("allow_inactive") if defaults is not None else None) or "no",
                "active": (defaults.findtext("allow_active") if defaults is not None else None) or "no",
                "implies": implies,
            }
    return actions


def account(what, typed=None):
    """Asks guest/sudo/account.py about the desktop user in root's view of /etc."""
    command = ["/bin/bash", "-c", '. "$0/common.sh"; osharm_account "$1" "$2"', SUDO_LIB, USER, what]
    try:
        done = subprocess.run(command, input=(typed or "") + "\n", text=True, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


class Authority:
    def __init__(self, connection):
        self.connection = connection
        self.actions = load_actions()
        # temporary authorization id -> (action id, expiry)
        self.kept = {}
        self.dialog_open = False

    # -- rules --------------------------------------------------------------------------------
    def implied_by(self, action_id):
        """Actions whose authorization also authorizes action_id (itself first)."""
        found = [action_id]
        for other, info in self.actions.items():
            if action_id in info["implies"]:
                found.append(other)
        return found

    def kept_for(self, action_id):
        now = time.monotonic()
        self.kept = {key: value for key, value in self.kept.items() if value[1] > now}
        for key, (kept_action, _) in self.kept.items():
            if kept_action in self.implied_by(action_id):
                return key
        return None

    def default_of(self, action_id):
        info = self.actions.get(action_id)
        return info["active"] if info else "auth_admin"

    # -- D-Bus --------------------------------------------------------------------------------
    def on_call(self, connection, sender, path, interface, method, parameters, invocation):
        args = parameters.unpack()
        if method == "CheckAuthorization":
            self.check(sender, args, invocation)
        elif method == "EnumerateActions":
            rows = [(key, info["description"], info["message"], info["vendor"], "", info["icon"],
                     self.result_code(info["any"]), self.result_code(info["inactive"]),
                     self.result_code(info["active"]), {})
                    for key, info in sorted(self.actions.items())]
            invocation.return_value(GLib.Variant("(a(ssssssuuua{ss}))", (rows,)))
        elif method == "EnumerateTemporaryAuthorizations":
            now = time.monotonic()
            rows = []
            for key, (action_id, expiry) in self.kept.items():
                if expiry > now:
                    obtained = int(time.time() - (KEEP_SECONDS - (expiry - now)))
                    rows.append((key, action_id, ("unix-session", {"session-id": GLib.Variant("s", "1")}),
                                 obtained, int(time.time() + (expiry - now))))
            invocation.return_value(GLib.Variant("(a(ss(sa{sv})tt))", (rows,)))
        elif method in ("RevokeTemporaryAuthorizations", "RevokeTemporaryAuthorizationById"):
            if method == "RevokeTemporaryAuthorizations":
                self.kept.clear()
            else:
                self.kept.pop(args[0], None)
            record("polkit", "revoke", [], "done")
            invocation.return_value(None)
            self.emit_changed()
        elif method in ("CancelCheckAuthorization", "RegisterAuthenticationAgent",
                        "RegisterAuthenticationAgentWithOptions", "UnregisterAuthenticationAgent"):
            invocation.return_value(None)
        else:
            invocation.return_dbus_error("org.freedesktop.PolicyKit1.Error.NotSupported",
                                         "not supported on this desktop")

    @staticmethod
    def result_code(value):
        return {"no": 0, "auth_self": 1, "auth_admin": 2, "auth_self_keep": 3,
                "auth_admin_keep": 4, "yes": 5}.get(value, 0)

    def on_get_property(self, connection, sender, path, interface, name):
        return {"BackendName": GLib.Variant("s", "osharm"),
                "BackendVersion": GLib.Variant("s", "1"),
                "BackendFeatures": GLib.Variant("u", 1)}.get(name)

    def emit_changed(self):
        self.connection.emit_signal(None, "/org/freedesktop/PolicyKit1/Authority",
                                    "org.freedesktop.PolicyKit1.Authority", "Changed", None)

    def reply(self, invocation, authorized, challenge=False, details=None):
        invocation.return_value(GLib.Variant("((bba{ss}))", ((authorized, challenge, details or {}),)))

    def check(self, sender, args, invocation):
        (kind, _subject), action_id, _details, flags, _cancel = args
        rule = self.default_of(action_id)
        kept = self.kept_for(action_id)
        interactive = bool(flags & 1)
        if rule == "yes":
            return self.reply(invocation, True)
        if rule == "no":
            record("polkit", action_id, [kind], "denied")
            return self.reply(invocation, False)
        if kept is not None:
            return self.reply(invocation, True, False, {"polkit.temporary_authorization_id": kept})
        keep = rule.endswith("_keep")
        if not interactive:
            details = {"polkit.retains_authorization_after_challenge": "1"} if keep else {}
            return self.reply(invocation, False, True, details)
        if self.dialog_open:
            record("polkit", action_id, [kind], "busy")
            return invocation.return_dbus_error("org.freedesktop.PolicyKit1.Error.Failed",
                                                "An authentication dialog is already open")
        if rule.startswith("auth_admin") and not account("sudoer"):
            record("polkit", action_id, [kind], "not-sudoer")
            return self.reply(invocation, False)
        self.dialog_open = True
        info = self.actions.get(action_id, {})

        def finish(outcome):
            self.dialog_open = False
            record("polkit", action_id, [kind], outcome)
            if outcome != "granted":
                return self.reply(invocation, False, False, {"polkit.dismissed": "1"})
            details = {}
            if keep:
                key = str(uuid.uuid4())
                self.kept[key] = (action_id, time.monotonic() + KEEP_SECONDS)
                details["polkit.temporary_authorization_id"] = key
            self.reply(invocation, True, False, details)
            if keep:
                self.emit_changed()

        PasswordDialog(info.get("message") or "Authentication is required to perform this action.",
                       finish).present()


def real_name():
    """The desktop user's name as the dialog shows it (the passwd comment, else the login)."""
    try:
        with open("/etc/passwd", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                fields = line.rstrip("\n").split(":")
                if fields[0] == USER and len(fields) > 4 and fields[4].split(",")[0]:
                    return fields[4].split(",")[0]
    except OSError:
        pass
    return USER


class PasswordDialog:
    """A window like GNOME Shell's polkit dialog; calls done("granted" | "cancelled")."""

    def __init__(self, message, done):
        self.done = done
        self.failures = 0
        self.window = Gtk.Window(title="Authentication Required")
        self.window.set_position(Gtk.WindowPosition.CENTER_ALWAYS)
        self.window.set_keep_above(True)
        self.window.set_resizable(False)
        self.window.set_default_size(460, -1)
        self.window.set_type_hint(1)  # Gdk.WindowTypeHint.DIALOG
        self.window.connect("delete-event", lambda *_: self.finish("cancelled") or True)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin=24)
        title = Gtk.Label()
        title.set_markup("<b><big>Authentication Required</big></b>")
        box.add(title)
        body = Gtk.Label(label=message, wrap=True, max_width_chars=48, justify=Gtk.Justification.CENTER)
        box.add(body)
        box.add(Gtk.Label(label=real_name()))
        self.entry = Gtk.Entry(visibility=False, placeholder_text="Password", activates_default=True)
        self.entry.get_accessible().set_name("Password")
        box.add(self.entry)
        self.error = Gtk.Label(label="")
        box.add(self.error)
        buttons = Gtk.Box(spacing=12, homogeneous=True)
        cancel = Gtk.Button(label="Cancel")
        cancel.connect("clicked", lambda *_: self.finish("cancelled"))
        self.ok = Gtk.Button(label="Authenticate", can_default=True)
        self.ok.connect("clicked", lambda *_: self.submit())
        buttons.add(cancel)
        buttons.add(self.ok)
        box.add(buttons)
        self.window.add(box)
        self.window.set_default(self.ok)
        self.finished = False

    def present(self):
        self.window.show_all()
        self.window.present()
        self.entry.grab_focus()

    def submit(self):
        typed = self.entry.get_text()
        if account("password", typed):
            return self.finish("granted")
        self.failures += 1
        record("polkit", "password", [], "wrong-password")
        self.entry.set_text("")
        self.error.set_text("Sorry, that didn't work. Please try again.")
        if self.failures >= 3:
            self.finish("wrong-password")

    def finish(self, outcome):
        if self.finished:
            return
        self.finished = True
        self.window.destroy()
        self.done(outcome)


def main():
    GLib.set_prgname("polkit-authentication-agent")
    connection = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    authority = Authority(connection)
    node = Gio.DBusNodeInfo.new_for_xml(INTERFACE)
    connection.register_object("/org/freedesktop/PolicyKit1/Authority", node.interfaces[0],
                               authority.on_call, authority.on_get_property, None)

    def lost(*_):
        Gtk.main_quit()

    Gio.bus_own_name_on_connection(connection, "org.freedesktop.PolicyKit1",
                                   Gio.BusNameOwnerFlags.NONE, None, lost)
    Gtk.main()


if __name__ == "__main__":
    main()
