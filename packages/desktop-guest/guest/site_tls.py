"""osharm desktop: HTTPS on 127.0.0.1:<port> for upstream's site hosts (guest/site-tls.sh).

Each TLS connection is decrypted with the desktop's own server certificate and forwarded as plain
HTTP to 127.0.0.1:<backend>, where the injection's capture listener serves the page and records the
request. With nothing listening there the connection is closed, as a refused page. The key file is
deleted once loaded. Binding a port below 1024 needs the provider to lower the network namespace's
unprivileged port start: the bind is retried until --bind-timeout. The state file says `serving` or
`failed: <why>`.
"""
import argparse
import asyncio
import os
import ssl
import sys
import time


def write_state(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    os.replace(tmp, path)


async def pipe(reader, writer):
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
    except (OSError, ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
        pass
    finally:
        try:
            writer.close()
        except (OSError, RuntimeError):
            pass


def handler(backend):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", backend)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    return handle


async def serve(options, context):
    deadline = time.monotonic() + options.bind_timeout
    while True:
        try:
            server = await asyncio.start_server(
                handler(options.backend), "127.0.0.1", options.port, ssl=context,
                ssl_handshake_timeout=10,
            )
            break
        except PermissionError as error:
            if time.monotonic() > deadline:
                write_state(options.state, f"failed: cannot bind port {options.port}: {error}")
                print(f"osharm: https on port {options.port} is not served: {error}", file=sys.stderr)
                return 1
            await asyncio.sleep(0.02)
    write_state(options.state, f"serving 127.0.0.1:{options.port} -> 127.0.0.1:{options.backend}")
    async with server:
        await server.serve_forever()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, default=443)
    parser.add_argument("--backend", type=int, required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--bind-timeout", type=float, default=15.0)
    options = parser.parse_args()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.set_alpn_protocols(["http/1.1"])
    try:
        context.load_cert_chain(options.cert, options.key)
    except (OSError, ssl.SSLError) as error:
        write_state(options.state, f"failed: certificate: {error}")
        return 1
    finally:
        try:
            os.unlink(options.key)
        except OSError:
            pass
    return asyncio.run(serve(options, context))


if __name__ == "__main__":
    sys.exit(main())
