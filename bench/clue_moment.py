"""`python -m bench.clue_moment`: what the host says to each line heard while a clue is awaited.

The held-out voices' clues ("garden, nine") and their table talk, each heard by Whisper while the host
waits for a clue on the line's board, as the host hears it (`take_up`): taken (a clue, or asked back),
"Sorry?", or silence. A clue met with silence leaves its spymaster not knowing whether the host heard;
talk answered "Sorry?" is the host butting in. The recognition section hears talk while a team guesses;
this is the other moment, where no card's scores can tell a clue half heard from talk.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from bench.corpus import Condition, Utterance, audio_of, boards, corpus, default_cache, voices_of
from bench.report import header, percent, table
from engine.lang import Lang
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding.moment import Awaited, Moment

KINDS = ("clue", "talk")
REPLIES = ("taken", "Sorry?", "silence")


def reply_of(verdict: Attention) -> str:
    """The host's reply, as a table hears it: the line taken up (acted on, asked back, or a hint), a
    "Sorry?", or nothing."""
    if verdict is Attention.SORRY:
        return "Sorry?"
    return "silence" if verdict is Attention.IGNORE else "taken"


def lines(langs: list[Lang], quick: bool) -> list[Utterance]:
    """The held-out voices' clues and talk."""
    found: list[Utterance] = []
    for lang in langs:
        voices = voices_of(lang, "held-out")
        found += [u for u in corpus(lang, voices[:1] if quick else voices, quick=quick) if u.kind in KINDS]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.clue_moment", description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default="pt-BR,pt-PT,it,en")
    parser.add_argument("--conditions", default="clean,babble-10-reverb")
    parser.add_argument("--quick", action="store_true", help="one voice a language, a few lines")
    parser.add_argument("--cache", type=Path, default=default_cache())
    options = parser.parse_args(argv)
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.speech_models import Manifest, require

    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    said = lines([Lang.parse(tag) for tag in options.langs.split(",")], options.quick)
    tally: Counter[tuple[str, str, str]] = Counter()
    for condition in (Condition.parse(name) for name in options.conditions.split(",")):
        for utterance in said:
            moment = Moment(utterance.lang, Awaited.CLUE, visible=tuple(boards(utterance.lang)[utterance.board].cards))
            recognizer.prepare(moment, wait=True)  # the board's examples made here, not in a thread left running
            heard = recognizer.recognize(audio_of(utterance, condition, options.cache), moment)
            tally[(condition.name, utterance.kind, reply_of(take_up(heard, moment).verdict))] += 1
    rows = []
    for condition_name in dict.fromkeys(key[0] for key in tally):
        for kind in KINDS:
            counts = [tally[(condition_name, kind, reply)] for reply in REPLIES]
            n = sum(counts)
            rows.append([condition_name, kind, n, *(f"{c} ({percent(c, n)} %)" for c in counts)])
    print(header(" ".join(argv if argv is not None else sys.argv[1:]), "python -m bench.clue_moment"))
    print("\n## Lines heard while a clue is awaited\n")
    print(table(["condition", "line", "n", *REPLIES], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
