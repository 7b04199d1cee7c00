"""Installs are reproducible: constraints.txt pins every Python package the development install needs,
directly or through another, and the tests run with exactly those versions. A dependency added to
pyproject.toml without `make constraints` fails here, not on next month's clean machine."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def pins(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, equals, version = line.partition("==")
            assert equals and version, f"{path.name}: {line!r} is not NAME==VERSION"
            found[canonicalize_name(name)] = version
    return found


def own_requirements(extras: set[str]) -> list[Requirement]:
    """What pyproject.toml asks for with these extras (an extra may name others: voicehost[player])."""
    wanted: list[Requirement] = [Requirement(text) for text in PROJECT["dependencies"]]
    seen: set[str] = set()
    todo = list(extras)
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in map(Requirement, PROJECT["optional-dependencies"][extra]):
            if canonicalize_name(requirement.name) == canonicalize_name(PROJECT["name"]):
                todo += requirement.extras
            else:
                wanted.append(requirement)
    return wanted


def needed(extras: set[str]) -> set[str]:
    """Every distribution the install needs, through the installed packages' own requirements."""
    found: set[str] = set()
    todo = [(requirement, "") for requirement in own_requirements(extras)]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in found:
            continue
        found.add(key)
        for text in metadata.requires(name) or []:
            for chosen in requirement.extras or {""}:
                todo.append((Requirement(text), chosen))
    return {key.partition("[")[0] for key in found}


def test_every_package_the_development_install_needs_is_pinned() -> None:
    pinned = pins(ROOT / "constraints.txt")
    missing = sorted(needed({"dev"}) - set(pinned))
    assert not missing, f"not in constraints.txt: {missing} (refresh it: make constraints)"


@pytest.mark.parametrize("extras", [{"player"}, {"dev"}])
def test_the_tests_run_with_the_pinned_versions(extras: set[str]) -> None:
    pinned = pins(ROOT / "constraints.txt")
    installed = {name: metadata.version(name) for name in needed(extras)}
    assert {name: version for name, version in installed.items() if pinned.get(name) != version} == {}


def test_pyproject_accepts_the_pinned_versions() -> None:
    pinned = pins(ROOT / "constraints.txt")
    refused = [str(r) for r in own_requirements({"dev"}) if pinned[canonicalize_name(r.name)] not in r.specifier]
    assert refused == []
