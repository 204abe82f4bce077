#!/usr/bin/env python3
"""Start a server, wait until its port answers, run a command, stop the server."""
import argparse
import socket
import subprocess
import sys
import time


def wait_for_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"server did not open port {port} within {timeout}s")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    server = subprocess.Popen(a.server, shell=True)
    try:
        wait_for_port(a.port, a.timeout)
        return subprocess.call(a.command[1:] if a.command[:1] == ["--"] else a.command)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
