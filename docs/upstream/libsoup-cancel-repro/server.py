#!/usr/bin/env python3
"""Loopback HTTP/1.1 server for repro.c.

Listens on 127.0.0.1 (a port the system picks, printed as "PORT <n>" on stdout) and, per
connection, reads requests and then, according to --mode:

  hold    never answers: the connection is held open until the client closes it
  answer  answers every request after a random delay of 0..--delay-ms milliseconds
  early   writes a complete response as soon as it accepts a connection, before the request
          has arrived (so the response is already buffered when libsoup reads it)

Responses are "HTTP/1.1 200 OK", Content-Length 2, keep-alive. The server stops by itself after
--lifetime seconds or when its standard input closes (run.sh keeps a pipe open to it).
"""
import argparse
import random
import selectors
import socket
import sys
import time

RESPONSE = (b"HTTP/1.1 200 OK\r\n"
            b"Content-Type: text/plain\r\n"
            b"Content-Length: 2\r\n"
            b"\r\n"
            b"ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("hold", "answer", "early"), default="hold")
    parser.add_argument("--delay-ms", type=float, default=5.0)
    parser.add_argument("--lifetime", type=float, default=600.0)
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    listener.setblocking(False)
    print("PORT", listener.getsockname()[1], flush=True)

    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "listen")
    sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    conns = {}        # socket -> bytes received and not yet parsed
    due = []          # (time, socket): answers to write (mode answer)
    deadline = time.monotonic() + args.lifetime

    def close(conn):
        sel.unregister(conn)
        conns.pop(conn, None)
        conn.close()

    while time.monotonic() < deadline:
        timeout = 0.2
        if due:
            timeout = max(0.0, min(timeout, min(t for t, _ in due) - time.monotonic()))
        for key, _ in sel.select(timeout):
            if key.data == "stdin":
                if not sys.stdin.buffer.read1(4096):
                    return
            elif key.data == "listen":
                try:
                    conn, _ = listener.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(False)
                conns[conn] = b""
                sel.register(conn, selectors.EVENT_READ, "conn")
                if args.mode == "early":
                    conn.sendall(RESPONSE)
            else:
                conn = key.fileobj
                try:
                    data = conn.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    data = b""
                if not data:
                    close(conn)
                    continue
                buf = conns[conn] + data
                while b"\r\n\r\n" in buf:  # GET requests: no bodies
                    _, buf = buf.split(b"\r\n\r\n", 1)
                    if args.mode == "answer":
                        due.append((time.monotonic() + random.uniform(0, args.delay_ms) / 1000, conn))
                conns[conn] = buf
        now = time.monotonic()
        for item in [d for d in due if d[0] <= now]:
            due.remove(item)
            if item[1] in conns:
                try:
                    item[1].sendall(RESPONSE)
                except OSError:
                    close(item[1])


if __name__ == "__main__":
    main()
