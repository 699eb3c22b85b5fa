"""What every stand-in portal of the tests shares: owning org.freedesktop.portal.Desktop on the
session bus with the given interfaces, printing READY once the name is owned, and (for the
switchable ones) one command a line on stdin. Each stand-in keeps its own answers."""
from __future__ import annotations

import sys
from typing import Callable

from gi.repository import Gio, GLib

NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"

# Interfaces more than one stand-in serves. GIO asks the network monitor (version 3: GetStatus,
# falling back to the older calls) and, with portals on, the proxy resolver for every request.
NETWORK_MONITOR = "org.freedesktop.portal.NetworkMonitor"
NETWORK_MONITOR_XML = """
  <interface name="org.freedesktop.portal.NetworkMonitor">
    <method name="GetAvailable"><arg type="b" direction="out"/></method>
    <method name="GetMetered"><arg type="b" direction="out"/></method>
    <method name="GetConnectivity"><arg type="u" direction="out"/></method>
    <method name="GetStatus"><arg type="a{sv}" direction="out"/></method>
    <method name="CanReach"><arg type="s" direction="in"/><arg type="u" direction="in"/>
      <arg type="b" direction="out"/></method>
    <signal name="changed"/>
    <property name="version" type="u" access="read"/>
  </interface>"""
PROXY_RESOLVER_XML = """
  <interface name="org.freedesktop.portal.ProxyResolver">
    <method name="Lookup"><arg type="s" direction="in"/><arg type="as" direction="out"/></method>
    <property name="version" type="u" access="read"/>
  </interface>"""
# GNetworkConnectivity: 1 local only, 4 full.
LOCAL, FULL = 1, 4


def answer_network(method: str, invocation, available: bool) -> bool:
    """Answers a NetworkMonitor or ProxyResolver call as a portal that says `available`, with
    proxies "direct://"; False when `method` is neither's."""
    connectivity = FULL if available else LOCAL
    if method == "Lookup":
        invocation.return_value(GLib.Variant("(as)", (["direct://"],)))
    elif method == "GetStatus":
        invocation.return_value(GLib.Variant("(a{sv})", ({
            "available": GLib.Variant("b", available), "metered": GLib.Variant("b", False),
            "connectivity": GLib.Variant("u", connectivity)},)))
    elif method in ("GetAvailable", "CanReach"):
        invocation.return_value(GLib.Variant("(b)", (available,)))
    elif method == "GetMetered":
        invocation.return_value(GLib.Variant("(b)", (False,)))
    elif method == "GetConnectivity":
        invocation.return_value(GLib.Variant("(u)", (connectivity,)))
    else:
        return False
    return True


def serve(node_xml: str, call, get_property, command: Callable[[str], None] | None = None) -> None:
    """Registers the interfaces of `node_xml` at PATH with `call(connection, sender, path,
    interface, method, parameters, invocation)` and `get_property(...)`, owns the name and runs
    until stdin closes (or the name is lost). `command(word)` gets each stdin line, stripped."""
    loop = GLib.MainLoop()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    for info in Gio.DBusNodeInfo.new_for_xml(node_xml).interfaces:
        bus.register_object(PATH, info, call, get_property, None)
    if command is not None:
        def on_input(channel, condition):
            line = channel.readline()
            if not line:
                loop.quit()
                return False
            command(line.strip())
            return True
        channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
        GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_input)
    Gio.bus_own_name_on_connection(bus, NAME, Gio.BusNameOwnerFlags.NONE,
                                   lambda *_: print("READY", flush=True), lambda *_: loop.quit())
    loop.run()


def broadcast(interface: str, signal: str, parameters: GLib.Variant | None) -> None:
    """Emits `signal` from PATH to everyone on the session bus, as the real portal does."""
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.emit_signal(None, PATH, interface, signal, parameters)
    bus.flush_sync(None)
