"""What the profile runs: 30 guesses (cards alone and after a lead-in, en and pt-BR, a held-out voice,
clean) through Whisper's recognition and the decision, as the host hears them. See bench/README.md."""

from __future__ import annotations

from bench.corpus import Condition, audio_of, boards, corpus, default_cache, voices_of
from engine.lang import Lang
from voicehost.referee.take_up import take_up
from voicehost.understanding.moment import Awaited, ListenMode, Moment


def main() -> None:
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.speech_models import Manifest, require

    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    for tag in ("en", "pt-BR"):
        lang = Lang.parse(tag)
        said = [u for u in corpus(lang, voices_of(lang, "held-out")[:1]) if u.kind in ("card", "lead-in")][:15]
        for utterance in said:
            cards = tuple(boards(lang)[utterance.board].cards)
            moment = Moment(lang, Awaited.GUESS, visible=cards, listening=ListenMode.ADDRESSED, host_names=("host",))
            heard = recognizer.recognize(audio_of(utterance, Condition.parse("clean"), default_cache()), moment)
            take_up(heard, moment)


if __name__ == "__main__":
    main()
