#!/usr/bin/env python3
"""A network link between the app and the loopback service, for the bench's network profiles
(issue 28, item 2): a round trip and a bandwidth, shared by every connection, in user space.

    python3 link_emulator.py --target 127.0.0.1:PORT --rtt-ms 60 --mbit 20

prints `READY PORT` once it listens on 127.0.0.1:PORT and relays each connection to the target:

- **Round trip**: each direction delays every byte by half the round trip; a new connection's
  first request leaves a whole round trip after the connection was opened (the SYN and SYN-ACK
  the client would have waited for).
- **Bandwidth**: each direction is one link shared by all connections: segments of 1,448 bytes
  (an Ethernet TCP segment) leave one after another at the link's rate, in the order they came.

Why not `tc netem`: this machine's kernel has neither sch_netem nor sch_fq (for an eBPF delay),
only tbf and htb, which shape but cannot delay. What this does not model: TCP's slow start (a
real connection's first round trips carry less than the link could), and loss. Both the app and
curl, the floor, go through the same relay, so the comparison holds; the bench's physical limit
is computed for this link."""
from __future__ import annotations

import argparse
import asyncio
import sys

SEGMENT = 1448


class Direction:
    """One direction of the link: when each segment has crossed it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, delay: float, bits_per_second: float) -> None:
        self.loop, self.delay, self.rate = loop, delay, bits_per_second
        self.free_at = 0.0

    def arrival(self, size: int, not_before: float = 0.0) -> float:
        start = max(self.loop.time(), self.free_at, not_before)
        self.free_at = start + size * 8 / self.rate
        return self.free_at + self.delay


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: Direction,
               not_before: float = 0.0) -> None:
    """Copies `reader` to `writer`, each segment released when it has crossed the link."""
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

    async def deliver() -> None:
        while (item := await queue.get()) is not None:
            arrival, data = item
            wait = arrival - link.loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    delivering = asyncio.ensure_future(deliver())
    try:
        while data := await reader.read(65536):
            for start in range(0, len(data), SEGMENT):
                segment = data[start:start + SEGMENT]
                queue.put_nowait((link.arrival(len(segment), not_before), segment))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait(None)
    try:
        await delivering
    except (ConnectionError, OSError):
        pass


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", required=True, help="HOST:PORT of the service")
    parser.add_argument("--rtt-ms", type=float, required=True)
    parser.add_argument("--mbit", type=float, required=True, help="the link's rate, each way, in Mbit/s")
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    loop = asyncio.get_running_loop()
    half = args.rtt_ms / 2000
    down = Direction(loop, half, args.mbit * 1e6)
    up = Direction(loop, half, args.mbit * 1e6)

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        opened = loop.time()
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        # The request leaves once the handshake's round trip is over.
        await asyncio.gather(pump(client_reader, server_writer, up, not_before=opened + 2 * half),
                             pump(server_reader, client_writer, down))

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    print(f"READY {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
