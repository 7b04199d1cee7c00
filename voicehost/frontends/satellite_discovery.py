"""A satellite found by its name (`--satellite kitchen`), the way Home Assistant finds one: zeroconf.

wyoming-satellite announces itself on the local network as a `_wyoming._tcp.local.` service. The
service's own name is `--zeroconf-name`, which defaults to the machine's MAC address, not to `--name`;
the name people know (`--name kitchen`, what Home Assistant shows) is what the satellite answers to
`describe`. So every Wyoming service that answers the browse is described, as Home Assistant does,
and the wanted name may match either; services that are not satellites (Piper, Whisper) are left out.

Browsing stops once a match has been found and no new service has appeared for GRACE_SECONDS (all
responders answer the first query within a fraction of a second), or after `seconds`. Two satellites
with the same name are refused: the one voicehost would pick might be the instance Home Assistant holds.

zeroconf is part of the satellite extra (`pip install 'voicehost[satellite]'`); without it, a satellite
is given by its address.
"""

from __future__ import annotations

import asyncio
import queue
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from voicehost.frontends.wyoming_wire import describe, open_connection, printable_name, reset

SERVICE_TYPE: Final = "_wyoming._tcp.local."
DISCOVERY_SECONDS: Final = 4.0
"""How long the network is searched for a satellite of that name before giving up."""
GRACE_SECONDS: Final = 1.0
"""Once a match is found, how long to wait for another satellite of the same name."""
RESOLVE_MILLISECONDS: Final = 1500
DESCRIBE_SECONDS: Final = 2.0


class ZeroconfMissing(Exception):
    """The zeroconf library is not installed."""


class SatelliteNotFound(Exception):
    """No satellite of that name answered in time; `found` names those that did."""

    def __init__(self, name: str, seconds: float, found: list[str]) -> None:
        super().__init__(name)
        self.name, self.seconds, self.found = name, seconds, found


class SatelliteNameTaken(Exception):
    """Two satellites answer to the same name; `addresses` are where they are."""

    def __init__(self, name: str, addresses: list[str]) -> None:
        super().__init__(name)
        self.name, self.addresses = name, addresses


@dataclass(frozen=True)
class Announced:
    """One satellite on the network: where it listens and the names it goes by."""

    host: str
    port: int
    service: str  # the zeroconf service's name (--zeroconf-name, by default the MAC address)
    name: str  # the name it answers to `describe` (--name)

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def answers_to(self, wanted: str) -> bool:
        return _key(wanted) in (_key(self.service), _key(self.name))

    @property
    def shown(self) -> str:
        return self.name or self.service


def find_satellite(name: str, seconds: float = DISCOVERY_SECONDS) -> Announced:
    """The satellite called `name` on the local network; SatelliteNotFound, SatelliteNameTaken, or
    ZeroconfMissing when it cannot be found."""
    satellites: list[Announced] = []
    for satellite in _browse(seconds, lambda: _settled(satellites, name)):
        satellites.append(satellite)
    matches = [satellite for satellite in satellites if satellite.answers_to(name)]
    if len(matches) > 1:
        raise SatelliteNameTaken(name, [satellite.address for satellite in matches])
    if not matches:
        raise SatelliteNotFound(name, seconds, sorted({satellite.shown for satellite in satellites}, key=_key))
    return matches[0]


def _settled(satellites: list[Announced], name: str) -> bool:
    return any(satellite.answers_to(name) for satellite in satellites)


def _browse(seconds: float, found_enough: Callable[[], bool]) -> Iterator[Announced]:
    """Every satellite announced on the network within `seconds` (or until `found_enough()` holds and
    nothing new has come for GRACE_SECONDS), described."""
    try:
        from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf
    except ImportError:
        raise ZeroconfMissing() from None
    names: queue.Queue[str] = queue.Queue()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.put(name)

    try:
        zeroconf = Zeroconf()
    except OSError:  # no network to search: nothing is found
        return
    browser = None
    try:
        browser = ServiceBrowser(zeroconf, SERVICE_TYPE, handlers=[on_change])
        deadline = time.monotonic() + seconds
        last_new = time.monotonic()
        seen: set[str] = set()
        while (now := time.monotonic()) < deadline:
            if found_enough() and now - last_new >= GRACE_SECONDS:
                return
            try:
                service = names.get(timeout=min(0.1, deadline - now))
            except queue.Empty:
                continue
            if service in seen:
                continue
            seen.add(service)
            last_new = time.monotonic()
            info = zeroconf.get_service_info(SERVICE_TYPE, service, timeout=RESOLVE_MILLISECONDS)
            if info is None or not info.port:
                continue
            hosts = info.parsed_addresses(IPVersion.V4Only) + info.parsed_addresses(IPVersion.V6Only)
            announced = _described(hosts, int(info.port), printable_name(service.removesuffix("." + SERVICE_TYPE)))
            if announced is not None:
                yield announced
    finally:
        if browser is not None:
            browser.cancel()
        zeroconf.close()


def _described(hosts: list[str], port: int, service: str) -> Announced | None:
    """The satellite at the first of `hosts` that describes itself; None when none does, or it is
    another kind of Wyoming service."""
    for host in hosts:
        try:
            is_satellite, name = asyncio.run(_describe(host, port))
        except Exception:  # anything from a service that does not answer properly: not this one
            continue
        return Announced(host, port, service, name) if is_satellite else None
    return None


async def _describe(host: str, port: int) -> tuple[bool, str]:
    reader, writer = await open_connection(host, port, DESCRIBE_SECONDS)
    try:
        return await describe(reader, writer, DESCRIBE_SECONDS)
    finally:
        reset(writer)  # a reset, so that the satellite frees the connection (see wyoming_wire)


def _key(name: str) -> str:
    return " ".join(name.casefold().split())
