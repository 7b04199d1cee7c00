"""The point from which a garbled "undo" is taken while the next clue is awaited (`Calibration.undo_gap`).

A wrong reveal often ends the turn, so the table's "undo" often comes while a clue is awaited, when Whisper's
words for it may name nothing ("desfaz" written "deste faço."). Every way of saying undo is then scored as a
transcript of the line (`Heard.undo`: how many nats a token the best explains the audio worse than the free
transcript). An undo taken is asked first ("Undo the last guess, CHERRY?"), so a line taken wrongly costs a
question, and, in a din, the risk that a stray "yes" answers it. The point is the widest gap at which, in every
room, at most ASK_RATE of the lines said while a clue is awaited that are no undo (the clues, table talk, the
other commands and answers) are taken: a room is not let off because another is quiet. The undos said by the
tuning voices (`bench.corpus.undo_corpus`) say how many the point takes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from bench.calibrate_moves import ASK_RATE, MIN_SAMPLES, Measured
from bench.corpus import Condition, Utterance, audio_of, boards, undo_corpus, voices_of
from voicehost.decision import calibration, decide
from voicehost.ears.recognizers.whisper import WhisperRecognizer
from voicehost.understanding import Command, HeardCommand
from voicehost.understanding.moment import Awaited, moment_for
from voicehost.understanding.reading import Reading

OTHER_KINDS: Final = ("clue", "talk", "command", "yes/no")
"""What a table says while a clue is awaited besides "undo": the spymaster's clue, talk, another command, a
"yes" or "no" to someone (the cards are the operatives' while they guess, not now)."""


@dataclass(frozen=True)
class UndoSample:
    uid: str
    condition: str
    gap: float | None  # nats a token the best undo phrase is below the free transcript; None: never an undo by
    # the scores (the line is read as a clue or a command first, is too long, or nothing was scored)
    plain: bool  # the words alone already read it as undo
    meant: bool  # an undo was said


def collect_undos(
    recognizer: WhisperRecognizer,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache: Path,
    measured: Measured,
    role: str = "tune",
) -> list[UndoSample]:
    """The undos of the voices of `role` and the other lines of the clue phase (`utterances`, said by the same
    voices), heard while a clue is awaited right after a move (so the undo phrases are scored), each as the
    decision would take it at any gap."""
    lenient = replace(calibration(), undo_gap=math.inf)
    strict = replace(calibration(), undo_gap=None)

    def measure(utterance: Utterance, condition: Condition) -> UndoSample:
        cards = tuple(boards(utterance.lang)["test"].cards)
        moment = replace(moment_for(utterance.lang, cards, 5, Awaited.CLUE), undoable=True)
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        reading = Reading(heard.text, moment, heard.confidence)
        plain = _is_undo(decide(heard, reading, strict))
        reached = not plain and _is_undo(decide(heard, reading, lenient))  # only the scores make it one
        gap = heard.undo[1] if reached and heard.undo is not None else None
        return UndoSample(utterance.uid, condition.name, gap, plain, utterance.command is Command.UNDO)

    langs = list(dict.fromkeys(u.lang for u in utterances))
    undos = [u for lang in langs for u in undo_corpus(lang, voices_of(lang, role))]
    others = [u for u in utterances if u.kind in OTHER_KINDS]
    todo = [(u, c) for u in (*undos, *others) for c in conditions]
    return list(measured("undo", todo, measure, lambda row: UndoSample(**row), cache))


def _is_undo(understood: object) -> bool:
    return isinstance(understood, HeardCommand) and understood.command is Command.UNDO


def undo_point(samples: Sequence[UndoSample], shipped: float | None) -> float | None:
    """The widest gap (nats a token) at which, in every room, at most ASK_RATE of the lines that are no undo
    are taken for one; None when no gap keeps them under it (undo is then taken from its words only);
    `shipped` when fewer than MIN_SAMPLES undos were said."""
    if sum(s.meant for s in samples) < MIN_SAMPLES:
        return shipped
    rooms = {s.condition for s in samples}
    others = {room: [s for s in samples if s.condition == room and not s.meant] for room in rooms}
    best: float | None = None
    for gap in sorted({s.gap for s in samples if s.gap is not None}):
        if all(_within(lines, gap) <= ASK_RATE * len(lines) for lines in others.values()):
            best = gap
        else:
            break  # a wider gap takes every line this one takes, and more
    return None if best is None else math.floor(best * 1000) / 1000


def _within(samples: Sequence[UndoSample], gap: float) -> int:
    return sum(s.gap is not None and s.gap <= gap for s in samples)


def undo_summary(samples: Sequence[UndoSample], chosen: float | None) -> str:
    """What the point takes, per room: the undos said (read from their words, and by the scores), and the
    other lines taken for one."""
    parts = []
    for room in sorted({s.condition for s in samples}):
        said = [s for s in samples if s.condition == room and s.meant]
        others = [s for s in samples if s.condition == room and not s.meant]
        plain = sum(s.plain for s in said)
        scored = 0 if chosen is None else _within(said, chosen)
        wrongly = 0 if chosen is None else _within(others, chosen)
        parts.append(
            f"{room}: {plain} + {scored} of {len(said)} undos (words + scores), {wrongly} of {len(others)} other lines"
        )
    point = "from its words only" if chosen is None else f"within {chosen:.3f} nats a token of the transcript"
    return f"undo while a clue is awaited, {point}: " + "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench.calibrate_undo`: what the shipped point takes on the held-out voices (the point is
    chosen on the tuning voices by `python -m bench.calibrate --undo-only`)."""
    import argparse
    import sys

    from bench.calibrate import measured
    from bench.corpus import corpus, default_cache
    from engine.lang import Lang
    from voicehost.speech_models import Manifest, require

    parser = argparse.ArgumentParser(prog="python -m bench.calibrate_undo", description=main.__doc__)
    parser.add_argument("--langs", default="pt-BR,pt-PT,it,en")
    parser.add_argument("--conditions", default="clean,babble-10-reverb,babble-5-reverb,white-10")
    parser.add_argument("--cache", type=Path, default=default_cache())
    options = parser.parse_args(argv)
    langs = [Lang.parse(tag) for tag in options.langs.split(",")]
    conditions = [Condition.parse(name) for name in options.conditions.split(",")]
    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    utterances = [u for lang in langs for u in corpus(lang, voices_of(lang, "held-out")) if u.board == "test"]
    samples = collect_undos(recognizer, utterances, conditions, options.cache, measured, role="held-out")
    print(f"held-out voices, {undo_summary(samples, calibration().undo_gap)}")
    print(f"command: python -m bench.calibrate_undo {' '.join(argv if argv is not None else sys.argv[1:])}".strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
