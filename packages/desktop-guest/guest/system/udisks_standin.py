"""osharm local desktop: a UDisks2 stand-in on the sandbox's system bus (org.freedesktop.UDisks2).

udisksd needs the host's block devices (and loop devices need host root), which an unprivileged
sandbox has none of. This service presents one disk laid out as upstream's Ubuntu VM has it — a
25 GB virtual disk with a GPT: partition 1 a 1 MB BIOS boot partition, partition 2 a 537 MB FAT32
EFI system partition mounted at /boot/efi, partition 3 ext4 mounted at / — with the part of the
UDisks2 interface GNOME Disks uses, so that Disks shows it and its actions (Delete, Format,
Resize, Create Partition, Mount / Unmount, Edit Partition) work on this state. Nothing is written
to any disk. Each change is authorized through polkit as udisksd does it (so the agent meets the
same password dialog) and every call is appended to the system log (/run/osharm/system.log). The
state survives a restart of the service (/run/osharm/udisks-state.json) for the desktop's life.
"""

import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import Gio, GLib  # noqa: E402

from system_log import record  # noqa: E402
from udisks_interfaces import XML  # noqa: E402

ROOT = "/org/freedesktop/UDisks2"
MANAGER = ROOT + "/Manager"
DRIVE = ROOT + "/drives/VMware_Virtual_S_6000c2900a1b2c3d4e5f6a7b8c9d0e1f"
BLOCKS = ROOT + "/block_devices/"
STATE_FILE = "/run/osharm/udisks-state.json"
MIB = 1024 * 1024
SECTOR = 512
DISK_SIZE = 25 * 1000 * 1000 * 1000 // SECTOR * SECTOR
GPT_TAIL = 34 * SECTOR
TYPES = {"bios": "21686148-6449-6e6f-744e-656564454649", "esp": "c12a7328-f81f-11d2-ba4b-00a0c93ec93b",
         "linux": "0fc63daf-8483-4772-8e79-3d69d8477de4"}
FILESYSTEMS = ["ext2", "ext3", "ext4", "vfat", "ntfs", "exfat", "xfs", "btrfs", "swap"]
# BDFSResizeFlags as udisks reports them: offline shrink 2, offline grow 4, online grow 16.
RESIZE = {"ext2": 6, "ext3": 22, "ext4": 22, "vfat": 6, "ntfs": 6, "exfat": 0, "xfs": 16, "btrfs": 24}
VERSIONS = {"vfat": "FAT32", "ext4": "1.0", "ext3": "1.0", "ext2": "1.0", "ntfs": "", "swap": "2"}
NODE = Gio.DBusNodeInfo.new_for_xml(XML)
INFO = {interface.name: interface for interface in NODE.interfaces}


def initial_state():
    root_offset = 2 * MIB + 512 * MIB + MIB
    return {
        "table": "gpt",
        "disk_uuid": "4f6a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c",
        "partitions": [
            {"number": 1, "offset": MIB, "size": MIB, "type": TYPES["bios"], "name": "",
             "uuid": "6b1f0c7e-2a3d-4e5f-9a8b-7c6d5e4f3a21", "flags": 0, "fs": None},
            {"number": 2, "offset": 2 * MIB, "size": 512 * MIB, "type": TYPES["esp"], "name": "",
             "uuid": "9c2e1d0f-3b4a-4c5d-8e7f-6a5b4c3d2e10", "flags": 0,
             "fs": {"type": "vfat", "label": "", "uuid": "1A2B-3C4D", "mounts": ["/boot/efi"]}},
            {"number": 3, "offset": root_offset, "size": (DISK_SIZE - GPT_TAIL - root_offset) // MIB * MIB,
             "type": TYPES["linux"], "name": "", "uuid": "2d3e4f50-6a7b-4c8d-9e0f-1a2b3c4d5e6f", "flags": 0,
             "fs": {"type": "ext4", "label": "", "uuid": "8f7e6d5c-4b3a-4291-8807-f6e5d4c3b2a1", "mounts": ["/"]}},
        ],
    }


def load_state():
    try:
        with open(STATE_FILE, encoding="utf-8") as handle:
            state = json.load(handle)
        if isinstance(state, dict) and isinstance(state.get("partitions"), list):
            return state
    except (OSError, ValueError):
        pass
    return initial_state()


def path_bytes(text):
    return list(text.encode() + b"\0")


class Disk:
    def __init__(self, connection):
        self.connection = connection
        self.state = load_state()
        self.registered = {}  # (path, interface) -> registration id
        self.published = {}  # path -> {interface: {property: Variant}}

    # -- the model as D-Bus objects --------------------------------------------------------------
    def block_path(self, number=None):
        return BLOCKS + ("sda" if number is None else "sda%d" % number)

    def objects(self):
        state = self.state
        drive = {"Vendor": "VMware,", "Model": "VMware Virtual S", "Revision": "1.0", "Serial": "",
                 "WWN": "", "Id": "VMware-Virtual-S", "Configuration": {}, "Media": "", "MediaCompatibility": [],
                 "MediaRemovable": False, "MediaAvailable": True, "MediaChangeDetected": True,
                 "Size": DISK_SIZE, "TimeDetected": 1700000000000000, "TimeMediaDetected": 1700000000000000,
                 "Optical": False, "OpticalBlank": False, "OpticalNumTracks": 0, "OpticalNumAudioTracks": 0,
                 "OpticalNumDataTracks": 0, "OpticalNumSessions": 0, "RotationRate": -1,
                 "ConnectionBus": "", "Seat": "seat0", "Removable": False, "Ejectable": False,
                 "SortKey": "01hotplug/1700000000000000", "CanPowerOff": False, "SiblingId": ""}
        result = {
            MANAGER: {"org.freedesktop.UDisks2.Manager": {
                "Version": "2.9.4", "SupportedFilesystems": FILESYSTEMS,
                "SupportedEncryptionTypes": ["luks1", "luks2"], "DefaultEncryptionType": "luks1"}},
            DRIVE: {"org.freedesktop.UDisks2.Drive": drive},
        }
        disk = self.block(None, DISK_SIZE, state.get("fs"))
        disk["org.freedesktop.UDisks2.Block"]["HintPartitionable"] = True
        if state.get("table"):
            disk["org.freedesktop.UDisks2.PartitionTable"] = {
                "Partitions": [self.block_path(p["number"]) for p in state["partitions"]],
                "Type": state["table"]}
        result[self.block_path()] = disk
        for partition in state["partitions"]:
            block = self.block(partition["number"], partition["size"], partition.get("fs"))
            block["org.freedesktop.UDisks2.Partition"] = {
                "Number": partition["number"], "Type": partition["type"], "Flags": partition["flags"],
                "Offset": partition["offset"], "Size": partition["size"], "Name": partition["name"],
                "UUID": partition["uuid"], "Table": self.block_path(), "IsContainer": False, "IsContained": False}
            result[self.block_path(partition["number"])] = block
        return result

    def block(self, number, size, fs):
        name = "sda" if number is None else "sda%d" % number
        fs = fs or {}
        usage = "" if not fs else ("other" if fs.get("type") == "swap" else "filesystem")
        interfaces = {"org.freedesktop.UDisks2.Block": {
            "Device": path_bytes("/dev/" + name), "PreferredDevice": path_bytes("/dev/" + name),
            "Symlinks": [], "DeviceNumber": 8 * 256 + (number or 0), "Id": "", "Size": size, "ReadOnly": False,
            "Drive": DRIVE, "MDRaid": "/", "MDRaidMember": "/", "IdUsage": usage, "IdType": fs.get("type", ""),
            "IdVersion": VERSIONS.get(fs.get("type", ""), "") if fs else "", "IdLabel": fs.get("label", ""),
            "IdUUID": fs.get("uuid", ""), "Configuration": [], "CryptoBackingDevice": "/",
            "HintPartitionable": False, "HintSystem": True, "HintIgnore": False, "HintAuto": False,
            "HintName": "", "HintIconName": "", "HintSymbolicIconName": "", "UserspaceMountOptions": []}}
        if usage == "filesystem":
            interfaces["org.freedesktop.UDisks2.Filesystem"] = {
                "MountPoints": [path_bytes(mount) for mount in fs.get("mounts", [])], "Size": size}
        return interfaces

    def variants(self, interface, properties):
        info = INFO[interface]
        return {name: GLib.Variant(info.lookup_property(name).signature, value)
                for name, value in properties.items()}

    def publish(self):
        """Brings the bus in line with the model: objects, interfaces and property signals."""
        current = {path: {interface: self.variants(interface, props) for interface, props in ifaces.items()}
                   for path, ifaces in self.objects().items()}
        for path in list(self.published):
            gone = [i for i in self.published[path] if i not in current.get(path, {})]
            for interface in gone:
                self.connection.unregister_object(self.registered.pop((path, interface)))
            if gone:
                self.emit(ROOT, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                          GLib.Variant("(oas)", (path, gone)))
        for path, interfaces in current.items():
            before = self.published.get(path, {})
            added = {}
            for interface, props in interfaces.items():
                if interface not in before:
                    self.registered[(path, interface)] = self.connection.register_object(
                        path, INFO[interface], self.on_call, self.on_get, None)
                    added[interface] = props
                    continue
                changed = {k: v for k, v in props.items() if before[interface].get(k) != v}
                if changed:
                    self.emit(path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                              GLib.Variant("(sa{sv}as)", (interface, changed, [])))
            if added:
                self.emit(ROOT, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                          GLib.Variant("(oa{sa{sv}})", (path, added)))
        self.published = current

    def emit(self, path, interface, signal, parameters):
        self.connection.emit_signal(None, path, interface, signal, parameters)

    def save(self):
        temporary = STATE_FILE + ".tmp"
        try:
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump(self.state, handle)
            os.replace(temporary, STATE_FILE)
        except OSError:
            pass

    # -- calls -----------------------------------------------------------------------------------
    def on_get(self, connection, sender, path, interface, name):
        return self.published.get(path, {}).get(interface, {}).get(name)

    def on_manager_objects(self, connection, sender, path, interface, method, parameters, invocation):
        invocation.return_value(GLib.Variant("(a{oa{sa{sv}}})", (self.published,)))

    def partition(self, path):
        for partition in self.state["partitions"]:
            if self.block_path(partition["number"]) == path:
                return partition
        return None

    def on_call(self, connection, sender, path, interface, method, parameters, invocation):
        args = parameters.unpack()
        short = interface.rsplit(".", 1)[-1]
        if interface == "org.freedesktop.UDisks2.Manager":
            return self.manager_call(method, args, invocation)
        if method in ("Rescan", "GetSecretConfiguration") or short == "Drive" and method == "SetConfiguration":
            return invocation.return_value(GLib.Variant("(a(sa{sv}))", ([],)) if method == "GetSecretConfiguration"
                                           else None)
        action = "org.freedesktop.udisks2.modify-device-system"
        if short == "Filesystem" and method == "Unmount":
            action = "org.freedesktop.udisks2.filesystem-unmount-others"
        elif short == "Filesystem" and method == "Mount":
            action = "org.freedesktop.udisks2.filesystem-mount-system"
        what = "%s.%s" % (short, method)
        device = "/dev/" + path.rsplit("/", 1)[-1]
        options = args[-1] if args and isinstance(args[-1], dict) else {}
        interactive = not options.get("auth.no_user_interaction", False)

        def authorized(outcome):
            if outcome != "granted":
                record("udisks", what, [device] + [repr(a) for a in args[:-1]], "not-authorized")
                name = "NotAuthorizedDismissed" if outcome == "dismissed" else "NotAuthorizedCanObtain"
                return invocation.return_dbus_error("org.freedesktop.UDisks2.Error." + name,
                                                    "Not authorized to perform operation")
            try:
                reply = self.perform(path, short, method, args, device)
            except UdisksError as error:
                record("udisks", what, [device] + [repr(a) for a in args[:-1]], "failed: " + error.message)
                return invocation.return_dbus_error("org.freedesktop.UDisks2.Error." + error.name, error.message)
            record("udisks", what, [device] + [repr(a) for a in args[:-1]], "done")
            self.save()
            self.publish()
            invocation.return_value(reply)

        self.authorize(sender, action, interactive, authorized)

    def manager_call(self, method, args, invocation):
        if method == "CanFormat":
            return invocation.return_value(GLib.Variant("((bs))", ((args[0] in FILESYSTEMS + ["empty"], ""),)))
        if method == "CanResize":
            flags = RESIZE.get(args[0], 0)
            return invocation.return_value(GLib.Variant("((bts))", ((flags != 0, flags, ""),)))
        if method in ("CanCheck", "CanRepair"):
            return invocation.return_value(GLib.Variant("((bs))", ((args[0] in FILESYSTEMS, ""),)))
        if method in ("GetBlockDevices", "ResolveDevice"):
            paths = [p for p in self.published if p.startswith(BLOCKS)]
            return invocation.return_value(GLib.Variant("(ao)", (paths,)))
        if method in ("EnableModules", "EnableModule"):
            return invocation.return_value(None)
        invocation.return_dbus_error("org.freedesktop.UDisks2.Error.NotSupported", "Not supported on this desktop")

    def authorize(self, sender, action, interactive, done):
        subject = ("system-bus-name", {"name": GLib.Variant("s", sender)})

        def finished(connection, result):
            try:
                (authorized, _challenge, details), = connection.call_finish(result).unpack()
            except GLib.Error:
                return done("failed")
            done("granted" if authorized else "dismissed" if details.get("polkit.dismissed") else "denied")

        self.connection.call("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                             "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization",
                             GLib.Variant("((sa{sv})sa{ss}us)", (subject, action, {}, 1 if interactive else 0, "")),
                             GLib.VariantType("((bba{ss}))"), Gio.DBusCallFlags.NONE, GLib.MAXINT32, None, finished)

    # -- what each call does to the model --------------------------------------------------------
    def perform(self, path, short, method, args, device):
        partition = self.partition(path)
        target = partition if partition is not None else self.state
        fs = target.get("fs")
        if short == "Filesystem":
            if not fs:
                raise UdisksError("NotSupported", "No filesystem on %s" % device)
            if method == "Unmount":
                if "/" in fs.get("mounts", []):
                    raise UdisksError("DeviceBusy", "Error unmounting %s: target is busy" % device)
                if not fs.get("mounts"):
                    raise UdisksError("NotMounted", "Object %s is not mounted" % path)
                fs["mounts"] = []
                return None
            if method == "Mount":
                if fs.get("mounts"):
                    raise UdisksError("AlreadyMounted", "Device %s is already mounted at `%s'." % (device, fs["mounts"][0]))
                mount = "/media/user/" + (fs.get("label") or fs.get("uuid") or device.rsplit("/", 1)[-1])
                fs["mounts"] = [mount]
                return GLib.Variant("(s)", (mount,))
            if method == "SetLabel":
                fs["label"] = args[0]
                return None
            if method == "Resize":
                self.check_unmounted(fs, device, allow_online=RESIZE.get(fs.get("type"), 0) & 16)
                return None
            if method in ("Check", "Repair"):
                self.check_unmounted(fs, device)
                return GLib.Variant("(b)", (True,))
            raise UdisksError("NotSupported", "Not supported on this desktop")
        if short == "Block" and method == "Format":
            kind, options = args
            self.check_unmounted(fs, device)
            if partition is None and kind in ("gpt", "dos"):
                self.state.update({"table": kind, "partitions": [], "fs": None})
                return None
            if partition is None:
                self.state.update({"table": "", "partitions": []})
            target["fs"] = self.new_fs(kind, options)
            return None
        if short == "Partition":
            if method == "Delete":
                self.check_unmounted(fs, device)
                self.state["partitions"].remove(partition)
                return None
            if method == "Resize":
                size = args[0]
                following = [p["offset"] for p in self.state["partitions"] if p["offset"] > partition["offset"]]
                end = min(following) if following else DISK_SIZE - GPT_TAIL
                if size == 0 or partition["offset"] + size > end:
                    size = end - partition["offset"]
                partition["size"] = size // SECTOR * SECTOR
                return None
            if method in ("SetType", "SetName", "SetUUID", "SetFlags"):
                partition[{"SetType": "type", "SetName": "name", "SetUUID": "uuid", "SetFlags": "flags"}[method]] = args[0]
                return None
        if short == "PartitionTable":
            return self.create_partition(args)
        raise UdisksError("NotSupported", "Not supported on this desktop")

    @staticmethod
    def check_unmounted(fs, device, allow_online=False):
        if fs and fs.get("mounts") and not allow_online:
            raise UdisksError("DeviceBusy", "Error on %s: device is mounted at %s" % (device, fs["mounts"][0]))

    @staticmethod
    def new_fs(kind, options):
        if kind in ("empty", ""):
            return None
        label = options.get("label", "")
        label = bytes(label).rstrip(b"\0").decode(errors="replace") if isinstance(label, (bytes, list)) else str(label)
        fs_uuid = str(uuid.uuid4()) if kind != "vfat" else uuid.uuid4().hex[:8].upper()
        if kind == "vfat":
            fs_uuid = fs_uuid[:4] + "-" + fs_uuid[4:]
        return {"type": kind, "label": label, "uuid": fs_uuid, "mounts": []}

    def create_partition(self, args):
        offset, size, kind, name, options = args[:5]
        partitions = self.state["partitions"]
        offset = max(MIB, (offset + MIB - 1) // MIB * MIB)
        following = [p["offset"] for p in partitions if p["offset"] >= offset]
        end = min(following) if following else DISK_SIZE - GPT_TAIL
        if any(p["offset"] <= offset < p["offset"] + p["size"] for p in partitions) or offset >= end:
            raise UdisksError("Failed", "Error creating partition: the space is in use")
        size = (end - offset) if size == 0 or offset + size > end else size
        used = {p["number"] for p in partitions}
        number = next(n for n in range(1, 129) if n not in used)
        partition = {"number": number, "offset": offset, "size": size // SECTOR * SECTOR,
                     "type": kind or TYPES["linux"], "name": name, "uuid": str(uuid.uuid4()), "flags": 0, "fs": None}
        if len(args) > 5:
            partition["fs"] = self.new_fs(args[5], args[6])
        partitions.append(partition)
        partitions.sort(key=lambda p: p["offset"])
        return GLib.Variant("(o)", (self.block_path(number),))


class UdisksError(Exception):
    def __init__(self, name, message):
        super().__init__(message)
        self.name = name
        self.message = message


def main():
    connection = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    disk = Disk(connection)
    manager_info = INFO["org.freedesktop.DBus.ObjectManager"]
    connection.register_object(ROOT, manager_info, disk.on_manager_objects, None, None)
    disk.publish()
    loop = GLib.MainLoop()
    Gio.bus_own_name_on_connection(connection, "org.freedesktop.UDisks2", Gio.BusNameOwnerFlags.NONE,
                                   None, lambda *_: loop.quit())
    loop.run()


if __name__ == "__main__":
    main()
