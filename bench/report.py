"""Markdown tables, percentiles and the header that says where and when the numbers were measured."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from collections.abc import Sequence
from importlib import metadata
from typing import Final

import numpy as np

from bench import ROOT


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table; numbers right-aligned."""
    cells = [[_cell(value) for value in row] for row in rows]
    numeric = [all(_is_number(row[index]) for row in rows) and bool(rows) for index in range(len(headers))]
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---:" if right else "---" for right in numeric) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 100 else f"{value:.2f}".rstrip("0").rstrip(".") or "0"
    return str(value).replace("|", "\\|")


def _is_number(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation), None for no values."""
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else None


def percent(part: int, whole: int) -> int | None:
    return round(100 * part / whole) if whole else None


def ms(value: float | None) -> int | None:
    return None if value is None else round(value)


COMPARISONS: Final = {"<=": "≤", ">=": "≥", "=": "="}
"""How a goal compares the measured value with its target, and the sign printed for it."""


def goal_met(value: float | None, limit: float, compare: str = "<=") -> str:
    """'yes' or '**no**' for value <= limit (or >= or = it, by `compare`); '–' when nothing was measured."""
    if value is None:
        return "–"
    if compare not in COMPARISONS:
        raise ValueError(f"unknown comparison {compare!r}: choose from {', '.join(COMPARISONS)}")
    met = value <= limit if compare == "<=" else value >= limit if compare == ">=" else value == limit
    return "yes" if met else "**no**"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.lower().startswith(("model name", "hardware", "processor\t: arm")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_mb() -> int | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _command_output(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "unknown"


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "unknown"


def header(options: str, program: str = "python -m bench") -> str:
    """Date, machine and software, as a short list above the tables; `program` and its `options` ran them."""
    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    memory = memory_mb()
    commit = _command_output("git", "rev-parse", "--short", "HEAD")
    dirty = _command_output("git", "status", "--porcelain", "--untracked-files=no") != "unknown"
    lines = [
        "# voicehost benchmarks",
        "",
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- machine: {cpu_model()}, {cores} cores ({usable} usable)"
        + (f", {memory} MB of memory" if memory else "")
        + f", load average {load_average()} at the start",
        f"- software: Python {platform.python_version()} on {platform.system()} {platform.release()}; "
        f"faster-whisper {_version('faster-whisper')}, ctranslate2 {_version('ctranslate2')}, "
        f"vosk {_version('vosk')}, {_command_output('espeak-ng', '--version').split('  Data at')[0]}",
        f"- code: {commit}" + (" with uncommitted changes" if dirty else ""),
        f"- command: `{' '.join([program, options]).strip()}`",
    ]
    return "\n".join(lines)
