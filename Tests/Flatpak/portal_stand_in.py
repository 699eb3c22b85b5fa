#!/usr/bin/env python3
"""A stand-in for xdg-desktop-portal on the test's session bus (org.freedesktop.portal.Desktop):
FileChooser.SaveFile and OpenFile (GTK's "select folder" asks OpenFile with directory=true) are
recorded (one JSON line per call in the file given as argument) and
answered "cancelled", as a user closing the dialog would, or, with `--choose PATH` (repeated for
several files), as a user choosing PATH would; the call's `multiple` option is recorded. The answer has the form xdg-desktop-portal gives it: "uris" is always
there, empty when cancelled (GTK 4.18 reads it without checking, and crashes on an answer without
it, which no real portal sends). ProxyResolver.Lookup answers
"direct://" (libproxy asks it for every request from inside the sandbox); NetworkMonitor says
the network is there (inside Flatpak GIO's network monitor is the portal's, and without an
answer it reports no network: the app would wait offline). With `--secret`, Secret.RetrieveSecret
hands out one master secret for good, as GNOME's portal does (libsecret inside Flatpak encrypts
the app's own keyring file with it). Other portals are not there, as on a desktop without them.
Prints READY once it owns the name. (test_offline.py switches the network
with Tests/Support/network_portal.py instead.)"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gi.repository import Gio, GLib

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Support"))
import portal_bus  # noqa: E402
from portal_bus import PATH  # noqa: E402

NODE = """<node>
  <interface name="org.freedesktop.portal.FileChooser">
    <method name="SaveFile"><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="o" direction="out"/></method>
    <method name="OpenFile"><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="o" direction="out"/></method>
    <property name="version" type="u" access="read"/>
  </interface>
  """ + portal_bus.NETWORK_MONITOR_XML + portal_bus.PROXY_RESOLVER_XML + """
</node>"""
SECRET_XML = """
  <interface name="org.freedesktop.portal.Secret">
    <method name="RetrieveSecret"><arg type="h" direction="in"/><arg type="a{sv}" direction="in"/>
      <arg type="o" direction="out"/></method>
    <property name="version" type="u" access="read"/>
  </interface>"""
# The same for every run, so a keyring written under one stand-in opens under the next.
MASTER_SECRET = bytes(range(64))


class PortalStandIn:
    """For tests: this script on the session bus, and the calls it recorded."""

    def __init__(self, root: Path, choose: Path | list[Path] | None = None, secret: bool = False) -> None:
        self.calls_path = root / "portal-calls.jsonl"
        chosen = choose if isinstance(choose, list) else [choose] if choose else []
        args = [sys.executable, __file__, str(self.calls_path)] + [a for c in chosen for a in ("--choose", str(c))]
        args += ["--secret"] if secret else []
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "READY", "the portal stand-in did not start"

    @property
    def calls(self) -> list[dict]:
        if not self.calls_path.exists():
            return []
        return [json.loads(line) for line in self.calls_path.read_text().splitlines() if line]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def main() -> None:
    log = open(sys.argv[1], "a", buffering=1)
    chosen = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--choose"]
    secret = "--secret" in sys.argv

    def respond(connection, sender, token, answer):
        request = f"{PATH}/request/{sender[1:].replace('.', '_')}/{token}"
        # Answered once the caller has the reply (the method's return goes out first).
        GLib.idle_add(lambda: connection.emit_signal(sender, request, "org.freedesktop.portal.Request",
                                                     "Response", answer) and False)
        return GLib.Variant("(o)", (request,))

    def call(connection, sender, path, interface, method, parameters, invocation):
        if portal_bus.answer_network(method, invocation, available=True):
            return
        if method == "RetrieveSecret":
            index, options = parameters.unpack()
            fd = invocation.get_message().get_unix_fd_list().get(index)
            with os.fdopen(fd, "wb") as pipe:
                pipe.write(MASTER_SECRET)
            log.write(json.dumps({"method": method}) + "\n")
            token = options.get("handle_token", "vt")
            invocation.return_value(respond(connection, sender, token, GLib.Variant("(ua{sv})", (0, {}))))
            return
        parent, title, options = parameters.unpack()
        log.write(json.dumps({"method": method, "title": title, "directory": bool(options.get("directory", False)),
                              "multiple": bool(options.get("multiple", False)),
                              "current_name": str(options.get("current_name", ""))}) + "\n")
        token = options.get("handle_token", "vt")
        response, uris = (0, [Gio.File.new_for_path(c).get_uri() for c in chosen]) if chosen else (1, [])
        answer = GLib.Variant("(ua{sv})", (response, {"uris": GLib.Variant("as", uris)}))
        invocation.return_value(respond(connection, sender, token, answer))

    def get_property(connection, sender, path, interface, name):
        return GLib.Variant("u", 3 if interface.endswith(("FileChooser", "NetworkMonitor")) else 1)

    portal_bus.serve(NODE.replace("</node>", SECRET_XML + "\n</node>") if secret else NODE, call, get_property)


if __name__ == "__main__":
    main()
