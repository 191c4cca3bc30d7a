"""The part of org.freedesktop.UDisks2 (udisks 2.9) the UDisks2 stand-in serves: what GNOME Disks 43
reads and calls. Written from the interface documentation; names and signatures as udisks has them."""

XML = """
<node>
  <interface name="org.freedesktop.DBus.ObjectManager">
    <method name="GetManagedObjects"><arg type="a{oa{sa{sv}}}" direction="out"/></method>
    <signal name="InterfacesAdded"><arg type="o"/><arg type="a{sa{sv}}"/></signal>
    <signal name="InterfacesRemoved"><arg type="o"/><arg type="as"/></signal>
  </interface>
  <interface name="org.freedesktop.UDisks2.Manager">
    <method name="CanFormat"><arg type="s" direction="in"/><arg type="(bs)" direction="out"/></method>
    <method name="CanResize"><arg type="s" direction="in"/><arg type="(bts)" direction="out"/></method>
    <method name="CanCheck"><arg type="s" direction="in"/><arg type="(bs)" direction="out"/></method>
    <method name="CanRepair"><arg type="s" direction="in"/><arg type="(bs)" direction="out"/></method>
    <method name="GetBlockDevices"><arg type="a{sv}" direction="in"/><arg type="ao" direction="out"/></method>
    <method name="ResolveDevice">
      <arg type="a{sv}" direction="in"/><arg type="a{sv}" direction="in"/><arg type="ao" direction="out"/>
    </method>
    <method name="EnableModules"><arg type="b" direction="in"/></method>
    <method name="EnableModule"><arg type="s" direction="in"/><arg type="b" direction="in"/></method>
    <method name="LoopSetup">
      <arg type="h" direction="in"/><arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <property name="Version" type="s" access="read"/>
    <property name="SupportedFilesystems" type="as" access="read"/>
    <property name="SupportedEncryptionTypes" type="as" access="read"/>
    <property name="DefaultEncryptionType" type="s" access="read"/>
  </interface>
  <interface name="org.freedesktop.UDisks2.Drive">
    <method name="Eject"><arg type="a{sv}" direction="in"/></method>
    <method name="SetConfiguration"><arg type="a{sv}" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="PowerOff"><arg type="a{sv}" direction="in"/></method>
    <property name="Vendor" type="s" access="read"/>
    <property name="Model" type="s" access="read"/>
    <property name="Revision" type="s" access="read"/>
    <property name="Serial" type="s" access="read"/>
    <property name="WWN" type="s" access="read"/>
    <property name="Id" type="s" access="read"/>
    <property name="Configuration" type="a{sv}" access="read"/>
    <property name="Media" type="s" access="read"/>
    <property name="MediaCompatibility" type="as" access="read"/>
    <property name="MediaRemovable" type="b" access="read"/>
    <property name="MediaAvailable" type="b" access="read"/>
    <property name="MediaChangeDetected" type="b" access="read"/>
    <property name="Size" type="t" access="read"/>
    <property name="TimeDetected" type="t" access="read"/>
    <property name="TimeMediaDetected" type="t" access="read"/>
    <property name="Optical" type="b" access="read"/>
    <property name="OpticalBlank" type="b" access="read"/>
    <property name="OpticalNumTracks" type="u" access="read"/>
    <property name="OpticalNumAudioTracks" type="u" access="read"/>
    <property name="OpticalNumDataTracks" type="u" access="read"/>
    <property name="OpticalNumSessions" type="u" access="read"/>
    <property name="RotationRate" type="i" access="read"/>
    <property name="ConnectionBus" type="s" access="read"/>
    <property name="Seat" type="s" access="read"/>
    <property name="Removable" type="b" access="read"/>
    <property name="Ejectable" type="b" access="read"/>
    <property name="SortKey" type="s" access="read"/>
    <property name="CanPowerOff" type="b" access="read"/>
    <property name="SiblingId" type="s" access="read"/>
  </interface>
  <interface name="org.freedesktop.UDisks2.Block">
    <method name="AddConfigurationItem"><arg type="(sa{sv})" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="RemoveConfigurationItem"><arg type="(sa{sv})" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="UpdateConfigurationItem">
      <arg type="(sa{sv})" direction="in"/><arg type="(sa{sv})" direction="in"/><arg type="a{sv}" direction="in"/>
    </method>
    <method name="GetSecretConfiguration"><arg type="a{sv}" direction="in"/><arg type="a(sa{sv})" direction="out"/></method>
    <method name="Format"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="OpenForBackup"><arg type="a{sv}" direction="in"/><arg type="h" direction="out"/></method>
    <method name="OpenForRestore"><arg type="a{sv}" direction="in"/><arg type="h" direction="out"/></method>
    <method name="OpenForBenchmark"><arg type="a{sv}" direction="in"/><arg type="h" direction="out"/></method>
    <method name="OpenDevice">
      <arg type="s" direction="in"/><arg type="a{sv}" direction="in"/><arg type="h" direction="out"/>
    </method>
    <method name="Rescan"><arg type="a{sv}" direction="in"/></method>
    <property name="Device" type="ay" access="read"/>
    <property name="PreferredDevice" type="ay" access="read"/>
    <property name="Symlinks" type="aay" access="read"/>
    <property name="DeviceNumber" type="t" access="read"/>
    <property name="Id" type="s" access="read"/>
    <property name="Size" type="t" access="read"/>
    <property name="ReadOnly" type="b" access="read"/>
    <property name="Drive" type="o" access="read"/>
    <property name="MDRaid" type="o" access="read"/>
    <property name="MDRaidMember" type="o" access="read"/>
    <property name="IdUsage" type="s" access="read"/>
    <property name="IdType" type="s" access="read"/>
    <property name="IdVersion" type="s" access="read"/>
    <property name="IdLabel" type="s" access="read"/>
    <property name="IdUUID" type="s" access="read"/>
    <property name="Configuration" type="a(sa{sv})" access="read"/>
    <property name="CryptoBackingDevice" type="o" access="read"/>
    <property name="HintPartitionable" type="b" access="read"/>
    <property name="HintSystem" type="b" access="read"/>
    <property name="HintIgnore" type="b" access="read"/>
    <property name="HintAuto" type="b" access="read"/>
    <property name="HintName" type="s" access="read"/>
    <property name="HintIconName" type="s" access="read"/>
    <property name="HintSymbolicIconName" type="s" access="read"/>
    <property name="UserspaceMountOptions" type="as" access="read"/>
  </interface>
  <interface name="org.freedesktop.UDisks2.PartitionTable">
    <method name="CreatePartition">
      <arg type="t" direction="in"/><arg type="t" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <method name="CreatePartitionAndFormat">
      <arg type="t" direction="in"/><arg type="t" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="a{sv}" direction="in"/><arg type="s" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <property name="Partitions" type="ao" access="read"/>
    <property name="Type" type="s" access="read"/>
  </interface>
  <interface name="org.freedesktop.UDisks2.Partition">
    <method name="SetType"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="SetName"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="SetUUID"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="SetFlags"><arg type="t" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="Resize"><arg type="t" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="Delete"><arg type="a{sv}" direction="in"/></method>
    <property name="Number" type="u" access="read"/>
    <property name="Type" type="s" access="read"/>
    <property name="Flags" type="t" access="read"/>
    <property name="Offset" type="t" access="read"/>
    <property name="Size" type="t" access="read"/>
    <property name="Name" type="s" access="read"/>
    <property name="UUID" type="s" access="read"/>
    <property name="Table" type="o" access="read"/>
    <property name="IsContainer" type="b" access="read"/>
    <property name="IsContained" type="b" access="read"/>
  </interface>
  <interface name="org.freedesktop.UDisks2.Filesystem">
    <method name="SetLabel"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="Mount"><arg type="a{sv}" direction="in"/><arg type="s" direction="out"/></method>
    <method name="Unmount"><arg type="a{sv}" direction="in"/></method>
    <method name="Resize"><arg type="t" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <method name="Check"><arg type="a{sv}" direction="in"/><arg type="b" direction="out"/></method>
    <method name="Repair"><arg type="a{sv}" direction="in"/><arg type="b" direction="out"/></method>
    <method name="TakeOwnership"><arg type="a{sv}" direction="in"/></method>
    <property name="MountPoints" type="aay" access="read"/>
    <property name="Size" type="t" access="read"/>
  </interface>
</node>
"""
