"""What the profile runs: 30 moves (en and pt-BR, a held-out voice, clean: cards alone and after a lead-in,
places, clues and commands) recognized and taken up as the host does it, each in the moment the host
builds for it (the board's places, the host's name listened for). See bench/README.md."""

from __future__ import annotations

from typing import Final

from bench.corpus import Condition, audio_of, boards, corpus, default_cache, voices_of
from bench.places import place_corpus
from engine.lang import Lang
from voicehost.referee.take_up import take_up
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.positions import Grid

PER_LANG: Final = {"card": 6, "lead-in": 4, "place": 2, "clue": 2, "command": 1}


def main() -> None:
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.speech_models import Manifest, require

    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    for tag in ("en", "pt-BR"):
        lang = Lang.parse(tag)
        voices = voices_of(lang, "held-out")[:1]
        said = corpus(lang, voices) + place_corpus(lang, voices)
        for kind, count in PER_LANG.items():
            for utterance in [u for u in said if u.kind == kind][:count]:
                board = boards(lang)[utterance.board]
                cards = tuple(board.cards)
                awaited = Awaited.CLUE if utterance.phase == "clue" else Awaited.GUESS
                moment = Moment(
                    lang,
                    awaited,
                    visible=cards,
                    grid=Grid(cards, board.grid.columns),
                    listening=ListenMode.ADDRESSED,
                    host_names=("host",),
                )
                heard = recognizer.recognize(audio_of(utterance, Condition.parse("clean"), default_cache()), moment)
                take_up(heard, moment)


if __name__ == "__main__":
    main()
