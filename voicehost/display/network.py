"""Where the display listens and which names a request may use to reach it.

Phones at the table reach the key pages over the local network, so by default the display listens
on this machine's address there (`table_address`): found by asking the kernel which source address a
packet to a private address would leave from (a UDP socket's `connect` sends nothing). Without any
network the display falls back to 127.0.0.1 and the console says so.

A request is served only if its Host header names this server (`HostCheck`): a web page elsewhere
that points one of its own names at this machine (DNS rebinding) sends its own name, and is refused.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterable
from typing import Final

LOOPBACK: Final = "127.0.0.1"
WILDCARDS: Final = ("", "0.0.0.0", "::")
PROBES: Final = (
    (socket.AF_INET, "10.254.254.254"),
    (socket.AF_INET, "192.168.254.254"),
    (socket.AF_INET6, "fd00::fe"),
)
"""Private addresses a route is looked up for; nothing is ever sent to them."""
LOCAL_NAMES: Final = ("localhost", "127.0.0.1", "::1")


def lan_address() -> str | None:
    """This machine's address on its local network (the one its route out leaves from); None without one."""
    for family, probe in PROBES:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            address = ipaddress.ip_address(sock.getsockname()[0])
            if not (address.is_loopback or address.is_unspecified or address.is_link_local):
                return str(address)
    return None


def table_address() -> str:
    """Where the web display listens unless `--host` says otherwise: the local network's address, so
    phones at the table can open the key pages; 127.0.0.1 when there is no network (the console says so)."""
    return lan_address() or LOOPBACK


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def reachable_address(host: str) -> str:
    """How others reach a server bound to `host`: the address itself, or the local network's for a wildcard."""
    return (lan_address() or LOOPBACK) if host in WILDCARDS else host


def url_host(address: str) -> str:
    """An address as a URL holds it (IPv6 in brackets)."""
    return f"[{address}]" if ":" in address else address


def split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header's name (lower case, no trailing dot, IPv6 without brackets) and port; None if malformed."""
    value = value.strip()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else None
    else:
        name, colon, port_text_found = value.rpartition(":")
        if not colon:
            name, port_text_found = value, ""
        port_text = port_text_found if colon else None
    if port_text is not None and not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5):
        return None
    name = name.rstrip(".").lower()
    if not name or not name.isascii() or any(c in name for c in "/\\@ \t"):
        return None
    return name, int(port_text) if port_text is not None else None


class HostCheck:
    """The names a request may reach this server by: the address it listens on, the address the
    connection arrived at, this machine's name (and its .local form), and the localhost forms. The
    port is not checked: a page elsewhere differs by its name, and a forwarded port is still this server."""

    def __init__(self, bind_host: str, names: Iterable[str] = ()) -> None:
        hostname = socket.gethostname().lower()
        self._names = {*LOCAL_NAMES, hostname, f"{hostname}.local", *(n.lower() for n in names)}
        if bind_host not in WILDCARDS:
            self._names.add(bind_host.lower())

    def allows(self, header: str | None, arrived_at: str) -> bool:
        """Whether a Host header names this server; `arrived_at` is the local address of the connection."""
        if header is None:
            return False
        parsed = split_host(header)
        if parsed is None:
            return False
        name = parsed[0]
        return name in self._names or _same_address(name, arrived_at)


def _same_address(name: str, address: str) -> bool:
    try:
        wanted = ipaddress.ip_address(name)
        found = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return False
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        found = found.ipv4_mapped
    return wanted == found
