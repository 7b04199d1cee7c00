"""Speech-model installs against a local HTTP server: progress, verification, atomic unpacking, offline help.

Nothing here talks to a real model host: every URL points at 127.0.0.1 (a test server, or a closed port).
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import shutil
import socket
import threading
import zipfile
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from voicehost import cli
from voicehost.speech_models import (
    MARKER,
    Manifest,
    ModelError,
    ModelSpec,
    check_files,
    checkout_models_dir,
    install,
    installed_path,
    models_dir,
    require,
    text_progress,
)

ARCHIVE = "vosk-model-test.zip"
MODEL_DIR = "vosk-model-test-0.1"
RNG = random.Random(20240517)
# Incompressible and stored: more than three 64 KiB chunks on the wire, so the progress bar moves.
FINAL_MDL = RNG.randbytes(200_000)
MODEL_CONF = b"--sample-frequency=16000\n"


def make_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as bundle:
        for name, data in files.items():
            bundle.writestr(name, data)
    return buffer.getvalue()


GOOD_ZIP = make_zip(
    {
        "vosk-model-test/am/final.mdl": FINAL_MDL,
        "vosk-model-test/conf/model.conf": MODEL_CONF,
        "vosk-model-test/README": b"a fake model\n",
    }
)
FLAT_ZIP = make_zip({"am/final.mdl": FINAL_MDL, "conf/model.conf": MODEL_CONF})
# A well-formed zip whose bytes differ from the published checksum (of GOOD_ZIP).
TAMPERED_ZIP = make_zip(
    {"vosk-model-test/am/final.mdl": FINAL_MDL[:-1] + b"!", "vosk-model-test/conf/model.conf": MODEL_CONF}
)
NOT_A_ZIP = b"<html><body>Please log in to download this model</body></html>\n" * 20
GOOD_SHA = hashlib.sha256(GOOD_ZIP).hexdigest()

WHISPER_FILES = {"model.bin": RNG.randbytes(150_000), "config.json": b'{"layers": 6}', "tokenizer.json": b"{}"}

ROUTES: dict[str, bytes] = {
    f"/good/{ARCHIVE}": GOOD_ZIP,
    f"/flat/{ARCHIVE}": FLAT_ZIP,
    f"/tampered/{ARCHIVE}": TAMPERED_ZIP,
    f"/notzip/{ARCHIVE}": NOT_A_ZIP,
    **{f"/whisper/{name}": data for name, data in WHISPER_FILES.items()},
}
CUT = f"/cut/{ARCHIVE}"  # promises all of GOOD_ZIP, sends half of it, hangs up
CHUNKED_CUT = f"/chunked-cut/{ARCHIVE}"  # chunked transfer that hangs up inside a chunk
GARBAGE = f"/garbage/{ARCHIVE}"  # not an HTTP answer at all


class Handler(BaseHTTPRequestHandler):
    hits: ClassVar[Counter[str]] = Counter()

    def do_GET(self) -> None:
        Handler.hits[self.path] += 1
        if self.path == CUT:
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.send_header("Content-Length", str(len(GOOD_ZIP)))
            self.end_headers()
            self.wfile.write(GOOD_ZIP[: len(GOOD_ZIP) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path == CHUNKED_CUT:
            self.protocol_version = "HTTP/1.1"
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n" % len(GOOD_ZIP) + GOOD_ZIP[:1000])
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path == GARBAGE:
            self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n")
            self.close_connection = True
            return
        body = ROUTES.get(self.path)
        if body is None:
            self.send_error(404, "Not Found")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never the project's models folder, never a proxy between us and 127.0.0.1."""
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path / "default-models"))
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "models"


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def vosk_spec(url: str, sha: str | None = None, **extra: Any) -> ModelSpec:
    data: dict[str, Any] = {
        "id": "vosk-test",
        "engine": "vosk",
        "langs": ["pt-BR", "pt-PT"],
        "dir": MODEL_DIR,
        "size_mb": 1,
        "machine": "any",
        "source": {"url": url},
        **extra,
    }
    if sha:
        data["sha256"] = {"zip": sha}
    return ModelSpec.from_dict(data)


def whisper_spec(base: str, sha256: dict[str, str] | None = None) -> ModelSpec:
    return ModelSpec.from_dict(
        {
            "id": "whisper-test",
            "engine": "whisper",
            "langs": ["en"],
            "dir": "whisper-test",
            "source": {"files": base, "names": list(WHISPER_FILES)},
            "sha256": sha256 or {},
        }
    )


def listing(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def assert_no_temp_leftovers(root: Path) -> None:
    leftovers = [name for name in listing(root) if name.startswith(".") or name.endswith(".part")]
    assert leftovers == [], leftovers


# --- zip archives from a URL -----------------------------------------------------------------------


def test_install_downloads_verifies_and_unpacks(server: str, root: Path) -> None:
    spec = vosk_spec(f"{server}/good/{ARCHIVE}", GOOD_SHA)
    calls: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        # While bytes arrive, the model folder does not exist yet: it appears only complete.
        assert not (root / MODEL_DIR).exists()
        calls.append((done, total))

    path = install(spec, root, progress)

    assert path == root / MODEL_DIR
    assert (path / "am" / "final.mdl").read_bytes() == FINAL_MDL
    assert (path / "conf" / "model.conf").read_bytes() == MODEL_CONF
    assert (path / MARKER).is_file()
    assert not (path / "vosk-model-test").exists(), "the archive's top folder is flattened away"
    check_files(spec, path)
    assert installed_path(spec, root) == path
    assert require(spec, root) == path
    assert_no_temp_leftovers(root)

    assert len(calls) >= 3
    done = [d for d, _ in calls]
    assert done == sorted(done) and len(set(done)) == len(done), "byte counts grow"
    assert {total for _, total in calls} == {len(GOOD_ZIP)}
    assert done[-1] == len(GOOD_ZIP)


def test_second_install_is_a_no_op(server: str, root: Path) -> None:
    spec = vosk_spec(f"{server}/good/{ARCHIVE}", GOOD_SHA)
    path = install(spec, root)
    marker = (path / MARKER).stat().st_mtime_ns
    requests = Handler.hits[f"/good/{ARCHIVE}"]
    calls: list[tuple[int, int]] = []

    assert install(spec, root, lambda d, t: calls.append((d, t))) == path

    assert Handler.hits[f"/good/{ARCHIVE}"] == requests, "no second download"
    assert calls == []
    assert (path / MARKER).stat().st_mtime_ns == marker


def test_archive_without_a_top_folder_unpacks_flat(server: str, root: Path) -> None:
    path = install(vosk_spec(f"{server}/flat/{ARCHIVE}"), root)
    assert (path / "am" / "final.mdl").read_bytes() == FINAL_MDL
    assert (path / "conf" / "model.conf").is_file()
    assert_no_temp_leftovers(root)


def test_a_stale_unmarked_folder_is_replaced(server: str, root: Path) -> None:
    stale = root / MODEL_DIR
    (stale / "am").mkdir(parents=True)
    (stale / "am" / "final.mdl").write_bytes(b"half")
    path = install(vosk_spec(f"{server}/good/{ARCHIVE}", GOOD_SHA), root)
    assert (path / "am" / "final.mdl").read_bytes() == FINAL_MDL
    assert (path / MARKER).is_file()


def test_checksum_mismatch_installs_nothing(server: str, root: Path) -> None:
    url = f"{server}/tampered/{ARCHIVE}"
    with pytest.raises(ModelError, match="checksum mismatch") as error:
        install(vosk_spec(url, GOOD_SHA), root)
    assert "install again" in str(error.value)
    assert listing(root) == []


def test_not_a_zip_installs_nothing(server: str, root: Path) -> None:
    with pytest.raises(ModelError, match="not a zip archive") as error:
        install(vosk_spec(f"{server}/notzip/{ARCHIVE}"), root)
    assert "install again" in str(error.value)
    assert listing(root) == []


def test_interrupted_download_installs_nothing(server: str, root: Path) -> None:
    url = f"{server}{CUT}"
    calls: list[tuple[int, int]] = []
    with pytest.raises(ModelError, match="stopped at") as error:
        install(vosk_spec(url, GOOD_SHA), root, lambda d, t: calls.append((d, t)))
    message = str(error.value)
    assert url in message
    assert f"of {len(GOOD_ZIP)} bytes" in message
    assert "try again" in message
    assert calls and calls[-1][0] < len(GOOD_ZIP)
    assert listing(root) == [], "no .part file, no staging folder, no model folder"


@pytest.mark.parametrize("path", [CHUNKED_CUT, GARBAGE], ids=["chunked-cut", "not-http"])
def test_broken_http_answers_raise_model_error(server: str, root: Path, path: str) -> None:
    url = f"{server}{path}"
    with pytest.raises(ModelError) as error:
        install(vosk_spec(url, GOOD_SHA), root)
    assert url in str(error.value)
    assert str(root / ARCHIVE) in str(error.value)
    assert listing(root) == []


def test_interrupted_download_then_a_retry_succeeds(server: str, root: Path) -> None:
    with pytest.raises(ModelError):
        install(vosk_spec(f"{server}{CUT}"), root)
    path = install(vosk_spec(f"{server}/good/{ARCHIVE}", GOOD_SHA), root)
    assert (path / "am" / "final.mdl").read_bytes() == FINAL_MDL


def test_not_found_installs_nothing(server: str, root: Path) -> None:
    url = f"{server}/missing/{ARCHIVE}"
    with pytest.raises(ModelError) as error:
        install(vosk_spec(url), root)
    message = str(error.value)
    assert url in message
    assert "Not Found" in message
    assert str(root / ARCHIVE) in message
    assert listing(root) == []


def test_offline_says_what_to_fetch_and_where_then_installs_from_that_file(root: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/vosk/{ARCHIVE}"
    spec = vosk_spec(url, GOOD_SHA)

    with pytest.raises(ModelError) as error:
        install(spec, root)
    message = str(error.value)
    assert url in message
    assert str(root / ARCHIVE) in message, "the exact path where a manually downloaded zip goes"
    assert "cannot download" in message
    assert listing(root) == []

    # The user fetches the zip on another machine and copies it where the message said.
    (root / ARCHIVE).write_bytes(GOOD_ZIP)
    path = install(spec, root)  # the URL still points at a closed port: no network is used
    assert (path / "am" / "final.mdl").read_bytes() == FINAL_MDL
    assert (path / MARKER).is_file()
    assert_no_temp_leftovers(root)


def test_a_corrupt_manually_copied_zip_is_reported(root: Path) -> None:
    spec = vosk_spec(f"http://127.0.0.1:{closed_port()}/vosk/{ARCHIVE}", GOOD_SHA)
    root.mkdir()
    (root / ARCHIVE).write_bytes(TAMPERED_ZIP)
    with pytest.raises(ModelError, match="checksum mismatch") as error:
        install(spec, root)
    assert str(root / ARCHIVE) in str(error.value)
    assert not (root / MODEL_DIR).exists()
    assert_no_temp_leftovers(root)


# --- loose files from a base URL -------------------------------------------------------------------


def test_files_source_downloads_each_file(server: str, root: Path) -> None:
    digest = hashlib.sha256(WHISPER_FILES["model.bin"]).hexdigest()
    spec = whisper_spec(f"{server}/whisper/", {"model.bin": digest})
    calls: list[tuple[int, int]] = []
    path = install(spec, root, lambda d, t: calls.append((d, t)))
    for name, data in WHISPER_FILES.items():
        assert (path / name).read_bytes() == data
    check_files(spec, path)
    assert (len(WHISPER_FILES["model.bin"]), len(WHISPER_FILES["model.bin"])) in calls
    assert listing(root) == ["whisper-test"]


def test_files_source_checksum_mismatch_installs_nothing(server: str, root: Path) -> None:
    spec = whisper_spec(f"{server}/whisper/", {"model.bin": "0" * 64})
    with pytest.raises(ModelError, match=r"model\.bin does not match its checksum; nothing was installed"):
        install(spec, root)
    assert listing(root) == []


def test_files_source_missing_file_installs_nothing(server: str, root: Path) -> None:
    spec = ModelSpec.from_dict(
        {
            "id": "whisper-test",
            "engine": "whisper",
            "langs": ["en"],
            "dir": "whisper-test",
            "source": {"files": f"{server}/whisper/", "names": ["config.json", "absent.bin"]},
        }
    )
    with pytest.raises(ModelError) as error:
        install(spec, root)
    assert f"{server}/whisper/absent.bin" in str(error.value)
    assert listing(root) == []


# --- progress bar, require, check_files, models_dir ------------------------------------------------


def test_text_progress_draws_a_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    show = text_progress("vosk-test")
    show(1 << 20, 4 << 20)
    show(4 << 20, 4 << 20)
    out, err = capsys.readouterr()
    assert out == ""
    assert "vosk-test [" + "#" * 7 + "." * 23 + "] 1/4 MB" in err
    assert "[" + "#" * 30 + "] 4/4 MB\n" in err
    show(3 << 20, 0)  # no Content-Length: a byte count, no bar
    assert "vosk-test 3 MB" in capsys.readouterr().err


def test_require_says_which_install_command_to_run(root: Path) -> None:
    spec = vosk_spec("http://127.0.0.1:9/unused.zip")
    with pytest.raises(ModelError) as error:
        require(spec, root)
    assert "voicehost models install pt-BR --engine vosk" in str(error.value)
    assert "vosk-test" in str(error.value)
    with pytest.raises(ModelError, match="voicehost models install pt-PT --engine vosk"):
        require(spec, root, lang="pt-PT")


def test_require_ignores_a_folder_without_the_marker(root: Path) -> None:
    spec = vosk_spec("http://127.0.0.1:9/unused.zip")
    (root / MODEL_DIR / "am").mkdir(parents=True)
    with pytest.raises(ModelError, match="not installed"):
        require(spec, root)


def test_check_files_rejects_a_model_with_a_missing_file(tmp_path: Path) -> None:
    spec = vosk_spec("http://127.0.0.1:9/unused.zip")
    (tmp_path / "am").mkdir()
    (tmp_path / "am" / "final.mdl").write_bytes(b"x")
    with pytest.raises(ModelError) as error:
        check_files(spec, tmp_path)
    message = str(error.value)
    assert "conf/model.conf" in message
    assert "am/final.mdl" not in message
    assert str(tmp_path) in message
    assert "voicehost models install pt-BR --engine vosk" in message
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "model.conf").write_bytes(MODEL_CONF)
    check_files(spec, tmp_path)


def test_check_files_knows_what_whisper_needs(tmp_path: Path) -> None:
    spec = whisper_spec("http://127.0.0.1:9/")
    (tmp_path / "model.bin").write_bytes(b"x")
    with pytest.raises(ModelError, match=r"config\.json, tokenizer\.json"):
        check_files(spec, tmp_path)


def test_models_dir_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path / "elsewhere"))
    assert models_dir() == tmp_path / "elsewhere"


def test_models_dir_without_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("VOICEHOST_MODELS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = checkout_models_dir()
    assert project is not None and project.name == "models" and (project.parent / "pyproject.toml").is_file()
    expected = project if os.access(project, os.W_OK) else tmp_path / "data" / "voicehost" / "models"
    assert models_dir() == expected


def test_manifest_is_consistent() -> None:
    manifest = Manifest.load()
    ids = [spec.id for spec in manifest.models]
    assert len(ids) == len(set(ids))
    assert len({spec.dir for spec in manifest.models}) == len(ids)
    for engine, langs in manifest.defaults.items():
        for lang, model_id in langs.items():
            spec = manifest.default_for(lang, engine)
            assert spec.id == model_id and spec.engine == engine and lang in spec.langs
    for spec in manifest.models:
        assert sum(key in spec.source for key in ("url", "files", "pypi")) == 1, spec.id
        if "url" in spec.source:
            assert str(spec.source["url"]).endswith(".zip"), spec.id
    with pytest.raises(ModelError, match="voicehost models list"):
        manifest.get("no-such-model")
    with pytest.raises(ModelError, match="no whisper model is known for ko"):
        manifest.default_for("ko", "whisper")


# --- the command line ------------------------------------------------------------------------------


def test_cli_models_list_prints_every_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    assert cli.main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert f"models folder: {tmp_path}" in out
    for spec in Manifest.load().models:
        assert spec.id in out
        assert spec.where_from in out
    assert "installed at" not in out


def test_cli_models_path_of_an_unknown_language(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    assert cli.main(["models", "path", "xx-XX"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("voicehost: ")
    assert "xx-XX" in err


def test_cli_models_path_when_not_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    assert cli.main(["models", "path", "en", "--engine", "vosk"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "voicehost models install en --engine vosk" in err
    assert listing(tmp_path) == []


def test_cli_models_path_when_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    spec = Manifest.load().default_for("pt-BR", "vosk")
    (tmp_path / spec.dir).mkdir()
    (tmp_path / spec.dir / MARKER).write_text(spec.id + "\n", encoding="utf-8")
    assert cli.main(["models", "path", "pt_br", "--engine", "vosk"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / spec.dir)


def _local_manifest(monkeypatch: pytest.MonkeyPatch, spec: ModelSpec) -> None:
    manifest = Manifest((spec,), {"vosk": {"pt-BR": spec.id, "pt-PT": spec.id}})
    monkeypatch.setattr("voicehost.speech_models.catalog.Manifest.load", classmethod(lambda cls: manifest))


def test_cli_models_install_shows_progress_and_prints_the_folder(
    server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    _local_manifest(monkeypatch, vosk_spec(f"{server}/good/{ARCHIVE}", GOOD_SHA))
    assert cli.main(["models", "install", "pt-BR", "--engine", "vosk"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(tmp_path / MODEL_DIR)
    assert "vosk-test [" in err and "#" * 30 in err
    assert cli.main(["models", "path", "pt-PT"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / MODEL_DIR)


def test_cli_models_install_offline_says_where_to_put_the_zip(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    url = f"http://127.0.0.1:{closed_port()}/vosk/{ARCHIVE}"
    _local_manifest(monkeypatch, vosk_spec(url, GOOD_SHA))
    assert cli.main(["models", "install", "pt-BR"]) == 1
    err = capsys.readouterr().err
    assert url in err and str(tmp_path / ARCHIVE) in err
    assert listing(tmp_path) == []

    # Fetched on another machine, then copied where the message said.
    downloaded = tmp_path.parent / f"{tmp_path.name}-usb" / ARCHIVE
    downloaded.parent.mkdir()
    downloaded.write_bytes(GOOD_ZIP)
    shutil.copyfile(downloaded, tmp_path / ARCHIVE)
    assert cli.main(["models", "install", "pt-BR"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / MODEL_DIR)
