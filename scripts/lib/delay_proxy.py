#!/usr/bin/env python3
"""A TCP proxy that puts a far-away object store in front of a local one (ELECT's evaluation used a cold tier about
45 ms away): every request a client sends is held for --delay-ms before it is forwarded; responses pass at once.

    python3 scripts/lib/delay_proxy.py --listen 127.0.0.1:9001 --target 127.0.0.1:9000 --delay-ms 45

"A request" is the first client bytes after the target has answered (or the first bytes of a connection): HTTP/1.1
keep-alive requests of an S3 client alternate with their responses, so each request/response round trip gets the
delay once, whatever its size, as a WAN round trip would. Loopback only by default; it serves until SIGTERM.
"""
import argparse
import asyncio
import signal
import sys


async def pump_client(reader, writer, delay, answered):
    """Client -> target: the first bytes after an answer (a new request) wait `delay` seconds."""
    while True:
        data = await reader.read(65536)
        if not data:
            break
        if answered.is_set():
            answered.clear()
            await asyncio.sleep(delay)
        writer.write(data)
        await writer.drain()
    writer.close()


async def pump_target(reader, writer, answered):
    """Target -> client, at once; marks that the target answered."""
    while True:
        data = await reader.read(65536)
        if not data:
            break
        answered.set()
        writer.write(data)
        await writer.drain()
    writer.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", default="127.0.0.1:9001")
    p.add_argument("--target", default="127.0.0.1:9000")
    p.add_argument("--delay-ms", type=float, required=True)
    a = p.parse_args()
    if a.delay_ms < 0:
        sys.exit("delay_proxy: --delay-ms must be >= 0")
    lhost, lport = a.listen.rsplit(":", 1)
    thost, tport = a.target.rsplit(":", 1)

    async def handle(creader, cwriter):
        try:
            treader, twriter = await asyncio.open_connection(thost, int(tport))
        except OSError:
            cwriter.close()
            return
        answered = asyncio.Event()
        answered.set()  # the first request of a connection is delayed too
        await asyncio.gather(pump_client(creader, twriter, a.delay_ms / 1000.0, answered),
                             pump_target(treader, cwriter, answered), return_exceptions=True)

    async def serve():
        server = await asyncio.start_server(handle, lhost, int(lport))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        print(f"delay_proxy: {a.listen} -> {a.target}, +{a.delay_ms} ms per request", flush=True)
        async with server:
            await stop.wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
