"""What the loopback service's modules share: the Response a route builds, query helpers, and
the State that the `/_control` endpoints change, with the request log. Kept apart from
loopback_service.py because that file runs as the script (`__main__`): a sibling importing it
would load a second copy with a State of its own."""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field

from loopback_images import BoundedCache


@dataclass
class Response:
    status: int
    content_type: str
    body: bytes
    headers: dict = field(default_factory=dict)


def json_response(obj, status: int = 200) -> Response:
    return Response(status, "application/json", json.dumps(obj).encode())


def int_param(q: dict, name: str, default: int) -> int:
    try:
        return int(q.get(name, default))
    except ValueError:
        return default


class State:
    """Everything the control endpoints can change, plus the request log."""

    def __init__(self, latency_ms: int, image_kb: int, total: int) -> None:
        self.lock = threading.Lock()
        self.default_latency_ms = latency_ms
        self.latency_ms = latency_ms
        self.image_kb = image_kb
        self.total = total
        self.faults: list[dict] = []
        self.holds: list[dict] = []          # rules: {"target", "count"} (count -1 = every)
        self.held: list[dict] = []           # request entries waiting for a release, oldest first
        self.read_late: dict[str, list[int]] = {}   # target -> ms each next request is read late
        self.released = threading.Condition(self.lock)
        self.requests: list[dict] = []
        self.connections: list[dict] = []
        self.sockets: dict[int, socket.socket] = {}   # open client connections by port
        self.busy_ports: set[int] = set()             # those answering a request now
        self.counts = {"tile": 0, "search": 0, "image": 0, "geocode": 0, "wiki": 0, "other": 0}
        self.shutting_down = threading.Event()
        self.tiles = BoundedCache(4000)
        self.images = BoundedCache(2000)
        self.size_hints: dict = {}

    def take_fault(self, target: str) -> dict | None:
        """The fault rule a request of `target` meets ({"mode", …, "retry_after"}), or None."""
        with self.lock:
            for fault in self.faults:
                if fault["target"] in (target, "any"):
                    fault["seen"] = fault.get("seen", 0) + 1
                    if fault["seen"] % fault.get("every", 1) != 0:
                        continue
                    if fault["count"] > 0:
                        fault["count"] -= 1
                        if fault["count"] == 0:
                            self.faults.remove(fault)
                    return dict(fault)
        return None

    def take_read_delay(self, target: str) -> int:
        """How many ms late the next request of `target` is read (uses up one `read-late` value)."""
        with self.lock:
            delays = self.read_late.get(target) or self.read_late.get("any")
            return delays.pop(0) if delays else 0

    def take_hold(self, target: str) -> bool:
        """Whether a request of `target` must wait for a release (uses up a counted hold)."""
        with self.lock:
            for hold in self.holds:
                if hold["target"] in (target, "any"):
                    if hold["count"] > 0:
                        hold["count"] -= 1
                        if hold["count"] == 0:
                            self.holds.remove(hold)
                    return True
        return False

    def release(self, target: str, count: int) -> int:
        """Lets the `count` oldest held requests of `target` go on (-1: all of them, and ends the
        holds on `target`). Returns how many were released."""
        with self.lock:
            matching = [e for e in self.held if target == "any" or e["target"] == target]
            chosen = matching if count < 0 else matching[:count]
            for entry in chosen:
                self.held.remove(entry)
                entry["held"] = False
            if count < 0:
                self.holds = [h for h in self.holds if target != "any" and h["target"] != target]
            self.released.notify_all()
            return len(chosen)

    def connected(self, port: int, sock: socket.socket) -> None:
        with self.lock:
            self.connections.append({"port": port, "start": time.monotonic(), "control": False})
            self.sockets[port] = sock

    def disconnected(self, port: int) -> None:
        with self.lock:
            self.sockets.pop(port, None)

    def busy(self, port: int, busy: bool) -> None:
        with self.lock:
            (self.busy_ports.add if busy else self.busy_ports.discard)(port)

    def close_idle(self) -> int:
        """Closes the client connections waiting for their next request (not control ones): the
        client sees the end of the stream, as when a server's keep-alive timeout ends one."""
        with self.lock:
            control = {c["port"] for c in self.connections if c["control"]}
            idle = [(port, sock) for port, sock in self.sockets.items()
                    if port not in self.busy_ports and port not in control]
            for port, sock in idle:
                del self.sockets[port]
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass   # the client had closed it already
            return len(idle)

    def control_connection(self, port: int) -> None:
        with self.lock:
            for connection in self.connections:
                if connection["port"] == port:
                    connection["control"] = True

    def record(self, entry: dict) -> None:
        with self.lock:
            self.requests.append(entry)
            self.counts[entry["target"]] += 1

    def snapshot(self) -> dict:
        with self.lock:
            return {"requests": [dict(r) for r in self.requests], "counts": dict(self.counts),
                    "connections": [dict(c) for c in self.connections],
                    "faults": [dict(f) for f in self.faults], "holds": [dict(h) for h in self.holds],
                    "held": [r["path"] for r in self.held], "latency_ms": self.latency_ms,
                    "total": self.total, "image_kb": self.image_kb}
