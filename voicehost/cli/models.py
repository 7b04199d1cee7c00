"""`voicehost models`: list, install or locate the speech models."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.decks import picture_names, words
from engine.lang import Lang
from voicehost.cli.failures import EXIT_OK
from voicehost.speech_models import (
    MARKER,
    Manifest,
    ModelError,
    ModelSpec,
    install,
    installed_path,
    models_dir,
    require,
    text_progress,
)


def command_models(args: argparse.Namespace) -> int:
    manifest = Manifest.load()
    if args.models_command == "list":
        root = models_dir()
        print(f"models folder: {root}")
        for spec in manifest.models:
            where = installed_path(spec, root)
            state = f"installed at {where}" if where else "not installed"
            print(f"{spec.id:15} {spec.engine:8} {','.join(spec.langs):22} {spec.size_mb:>5} MB  {state}")
            print(f"{'':15} for: {spec.machine}; from {spec.where_from}")
            if where and spec.engine == "vosk":
                for line in vocabulary_lines(spec, where):
                    print(f"{'':15} {line}")
        return EXIT_OK
    spec = _model_for(manifest, args.lang, args.engine)
    if args.models_command == "path":
        print(require(spec, lang=args.lang))
        return EXIT_OK
    path = _reinstall(spec) if args.force else install(spec, progress=text_progress(spec.id))
    print(path)
    return EXIT_OK


def vocabulary_lines(spec: ModelSpec, where: Path) -> list[str]:
    """How many cards of each deck an installed vosk model knows, per game language it serves: the rest
    can only be named by their place, and a dealt game prefers the known ones."""
    from voicehost.ears.recognizers.vosk.vocabulary import VoskVocabulary, cards_unheard

    langs = [lang for lang in Lang if lang.value in spec.langs]
    if not langs:
        return [f"knows no deck's words: it serves {', '.join(spec.langs)}, not a game language"]
    try:
        vocabulary = VoskVocabulary(where)
    except ModelError as exc:
        return [f"vocabulary not read: {exc}"]
    lines = []
    for lang in langs:
        check = cards_unheard(vocabulary.unheard, lang)
        counts = []
        for deck, cards in (("words", words(lang)), ("pictures", picture_names(lang))):
            counts.append(f"{len(cards) - len(check(cards))} of {len(cards)} {deck}")
        lines.append(f"knows {lang.value}: {', '.join(counts)}")
    return lines


def _reinstall(spec: ModelSpec) -> Path:
    """install() keeps a folder it installed before, so its marker goes first; when no new copy can be
    had, the marker comes back and the old files are as they were (install() replaces them only at the end)."""
    marker = models_dir() / spec.dir / MARKER
    kept = marker.read_text(encoding="utf-8") if marker.is_file() else None
    marker.unlink(missing_ok=True)
    try:
        return install(spec, progress=text_progress(spec.id))
    except BaseException:
        if kept is not None and marker.parent.is_dir() and not marker.exists():
            marker.write_text(kept, encoding="utf-8")
        raise


def _model_for(manifest: Manifest, lang_or_id: str, engine: str) -> ModelSpec:
    try:
        return manifest.get(lang_or_id)
    except ModelError:
        pass
    try:
        lang = Lang.parse(lang_or_id).value
    except ValueError:
        lang = lang_or_id
    return manifest.default_for(lang, engine)
