"""`python -m bench.calibrate`: fit the decision's confidence on the tuning voices, choose its operating
points, and write voicehost/decision/calibration.json.

Every card of the corpus's boards, alone and after a lead-in, is said by the TUNING voices only
(bench/corpus.py VOICE_ROLES) in each condition asked for (and the test board's in more rooms: babble and
reverb at other levels), and heard by the Whisper engine as the host hears it while guessing, through the
store of hearings (bench/hearings.py). First the weight of the second signal in the cards' scores is
chosen (`example_weight`: the likeliest card meant, on the tuning voices that are not espeak-ng's); then,
for the card the weighed scores put first, the decision's features (voicehost/decision/features.py) and
whether that card was the one meant are kept. A logistic model (Newton's method, a little L2) gives the
probability that the first card is right; leave-one-voice-out says what a voice it never saw may expect.
The operating points: `act` is the lowest probability at which at most one card in 1/WRONG_RATE_AT_ACT
acted on at once is not the card meant (pooled over voices and conditions: a wrong reveal can be undone,
but it costs the table); `ask` down to where a card heard with that probability is right at least half
the time. Table talk is not weighed here: the attention step (voicehost/understanding/talk.py) keeps it
from the decision, and the recognition tables report what it lets through. The held-out voices are never
read here: the recognition tables report them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np

from bench import ROOT
from bench.calibrate_answers import ROOM_GAMES, collect_room_answers
from bench.calibrate_moves import MovePoints, MoveSample, answer_fit, collect_commands, move_points
from bench.calibrate_undo import collect_undos, undo_point, undo_summary
from bench.calibrate_unworded import (
    collect_unworded,
    collect_unworded_places,
    place_point,
    place_summary,
    talk_ask_point,
    talk_ask_summary,
    unworded_point,
    unworded_summary,
)
from bench.corpus import Condition, Utterance, audio_of, boards, corpus, default_cache, voices_of
from bench.hearings import Hearings
from bench.places import PLACE_KINDS, place_corpus
from engine.lang import Lang
from voicehost.decision import FEATURES, Calibration, calibration, evidence
from voicehost.decision.calibration import Logistic
from voicehost.decision.features import with_examples
from voicehost.decision.places import placed_move
from voicehost.ears.heard import Heard
from voicehost.understanding import Action, Command, Intent, Phase, understand
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.positions import Grid
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import form_of, name_slip, spoken_host_name

T = TypeVar("T")

TARGET: Final = ROOT / "voicehost" / "decision" / "calibration.json"
DEFAULT_CONDITIONS: Final = ("clean", "babble-10-reverb", "white-10")
EXTRA_CONDITIONS: Final = ("babble-5-reverb", "babble-20-reverb")
"""Babble and reverb at other levels than 10 dB, on the test board only: the room's noise is a feature, and
its weight is learned across levels."""
WRONG_RATE_AT_ACT: Final = 0.005
"""At most one wrong card in 200 acted on at once, on the tuning voices."""
L2: Final = 0.01
ASK_PRECISION: Final = 0.5
MIN_BAND: Final = 50
"""How many samples nearest a threshold say how often a card heard there is right."""
NAME_CARDS: Final = 8
NAME_CLUES: Final = 4
NAME_CONDITIONS: Final = 2
"""The host's name is weighed clean and in the first noisy condition (babble and reverb by default)."""
PLACE_CONDITIONS: Final = 2
"""Places are weighed clean and in the first noisy condition, as the host's name."""
NAME_FALSE_RATE: Final = 0.005
NAME_ASK_FALSE_RATE: Final = 0.05
"""At most one utterance in 200 said without the host's name is heard as said to it, on the tuning voices."""


@dataclass(frozen=True)
class Sample:
    uid: str
    condition: str
    features: tuple[float, ...]
    right: bool

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Sample:
        return cls(row["uid"], row["condition"], tuple(row["features"]), bool(row["right"]))


def _code_version() -> str:
    """What the samples depend on: the engine, the tree decoder, the decision's code (the features, and
    what the moves' samples are taken as), how a line is taken up (the clue gate's and the open way's
    samples go through it), the vocabularies (the phrases scored and read), how they are
    measured, and the corpus's audio."""
    digest = hashlib.sha256()
    names = [
        "voicehost/ears/recognizers/whisper.py",
        "voicehost/ears/recognizers/whisper_tree.py",
        *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "voicehost" / "decision").glob("*.py")),
        *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "voicehost" / "vocab").glob("*.toml")),
        "bench/calibrate_moves.py",
        "bench/calibrate_undo.py",
        "bench/calibrate_unworded.py",
        "voicehost/referee/take_up.py",
        "voicehost/referee/attention.py",
        "bench/corpus.py",
        "bench/noise.py",
    ]
    for name in names:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()[:12]


def measured(
    kind: str,
    todo: Sequence[tuple[Utterance, Condition]],
    measure: Callable[[Utterance, Condition], T | None],
    load: Callable[[dict[str, Any]], T],
    cache: Path,
) -> list[T]:
    """What `measure` finds for each utterance in each condition, cached on disk by the code version
    (`<kind>-samples-<version>.json`): a rerun measures only what is new. None: nothing to weigh."""
    store = cache.parent / f"{kind}-samples-{_code_version()}.json"
    known: dict[str, T | None] = {}
    if store.exists():
        for item in json.loads(store.read_text(encoding="utf-8")):
            known[f"{item['uid']}|{item['condition']}"] = load(item) if "skipped" not in item else None
    started = time.monotonic()
    for done, (utterance, condition) in enumerate(todo, 1):
        key = f"{utterance.uid}|{condition.name}"
        if key not in known:
            known[key] = measure(utterance, condition)
        if done % 100 == 0:
            rate = done / max(1e-9, time.monotonic() - started)
            print(f"[calibrate] {kind} {done}/{len(todo)} ({rate:.1f}/s)", file=sys.stderr, flush=True)
            _save(store, known)
    _save(store, known)
    found = (known[f"{u.uid}|{c.name}"] for u, c in todo)
    return [sample for sample in found if sample is not None]


def _save(store: Path, known: dict[str, Any]) -> None:
    rows = []
    for key, sample in known.items():
        uid, _, condition = key.rpartition("|")
        rows.append(asdict(sample) if sample is not None else {"uid": uid, "condition": condition, "skipped": True})
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(json.dumps(rows), encoding="utf-8")


def guess_moment(utterance: Utterance) -> Moment:
    """The host waiting for a guess on the utterance's board, every card visible."""
    return Moment(utterance.lang, Awaited.GUESS, visible=tuple(boards(utterance.lang)[utterance.board].cards))


def hear_each(
    recognizer: Any, todo: Sequence[tuple[Utterance, Condition]], cache: Path, what: str
) -> list[tuple[Utterance, Condition, Heard]]:
    """Each utterance heard in its condition while the host waits for guesses, on its board: from the
    store of hearings (`bench.hearings`), recognized where new."""
    store = Hearings(cache)
    heard: list[tuple[Utterance, Condition, Heard]] = []
    started = time.monotonic()
    for done, (utterance, condition) in enumerate(todo, 1):
        moment = guess_moment(utterance)
        heard.append((utterance, condition, store.heard(recognizer, utterance, condition, moment)))
        if done % 100 == 0:
            rate = done / max(1e-9, time.monotonic() - started)
            print(f"[calibrate] {what} {done}/{len(todo)} ({rate:.1f}/s)", file=sys.stderr, flush=True)
    return heard


def sample_of(utterance: Utterance, condition: Condition, heard: Heard, weight: float = 0.0) -> Sample | None:
    """The features of the card heard first (the second signal weighed in with `weight`) and whether it is
    the card meant; None when there is no card to weigh (a command or a clue the transcript said plainly,
    or "pass" first)."""
    reading = Reading(heard.text, guess_moment(utterance), heard.confidence)
    said = reading.said
    if said.intent in (Intent.COMMAND, Intent.CLUE) and said.action is not Action.REPROMPT:
        return None  # a command or a clue the transcript said plainly: the host weighs no card then
    found = evidence(heard, reading, replace(calibration(), example_weight=weight))
    if found is None or found.features is None:
        return None
    right = utterance.card is not None and found.top == utterance.card
    return Sample(utterance.uid, condition.name, found.features.vector(), right)


def guesses_heard(
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    extra: Sequence[Condition],
    cache: Path,
) -> list[tuple[Utterance, Condition, Heard]]:
    """Every guess in each of `conditions`, and the test board's in each of `extra` (heard once, kept)."""
    todo = [(u, c) for c in conditions for u in utterances if u.kind in ("card", "lead-in")]
    todo += [(u, c) for c in extra for u in utterances if u.kind in ("card", "lead-in") and u.board == "test"]
    return hear_each(recognizer, todo, cache, "guesses")


def collect(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path
) -> list[Sample]:
    """The features of the card heard first, for each guess, in each condition (heard once, kept)."""
    found = (sample_of(*item) for item in guesses_heard(recognizer, utterances, conditions, (), cache))
    return [sample for sample in found if sample is not None]


EXAMPLE_WEIGHTS: Final = (0.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 60.0)
"""The weights of the second signal tried (nats per unit of its cost)."""


def example_weight(heard: Sequence[tuple[Utterance, Condition, Heard]]) -> tuple[float, str]:
    """The weight of the second signal in the cards' scores: of EXAMPLE_WEIGHTS, the one under which the
    card meant is likeliest (the softmax of the weighed scores, over every guess whose card was scored) on
    the tuning voices that are not espeak-ng's own (the examples are said by espeak-ng: its own voices match
    them far better than any person would); and how often each weight put the card meant first."""
    likelihood: dict[float, float] = dict.fromkeys(EXAMPLE_WEIGHTS, 0.0)
    first: dict[float, int] = dict.fromkeys(EXAMPLE_WEIGHTS, 0)
    counted = 0
    for utterance, _, said in heard:
        closed = said.closed
        if closed is None or utterance.card not in closed.phrases or said.examples is None:
            continue
        if utterance.voice.hard_tail:
            continue
        counted += 1
        cards = set(boards(utterance.lang)[utterance.board].cards)
        logits = {p: v for p, v in zip(closed.phrases, closed.logits, strict=True) if p in cards}
        for weight in EXAMPLE_WEIGHTS:
            weighed = with_examples(logits, said.examples, weight)
            top = max(weighed.values())
            log_z = top + math.log(sum(math.exp(v - top) for v in weighed.values()))
            likelihood[weight] += weighed[utterance.card] - log_z
            first[weight] += max(weighed, key=weighed.__getitem__) == utterance.card
    best = max(EXAMPLE_WEIGHTS, key=likelihood.__getitem__)
    summary = ", ".join(f"{w:g}: {first[w]}" for w in EXAMPLE_WEIGHTS)
    return best, f"card meant first of {counted}, by the second signal's weight: {summary}"


def leave_one_voice_out(samples: Sequence[Sample]) -> str:
    """Each tuning voice decided by a model fitted, and operating points chosen, on the others: how many of
    its guesses are acted on at once and how many of those are wrong (what a new voice may expect)."""
    voices = sorted({sample.uid.split("|")[0] for sample in samples})
    acted = wrong = 0
    for voice in voices:
        train = [s for s in samples if s.uid.split("|")[0] != voice]
        test = [s for s in samples if s.uid.split("|")[0] == voice]
        bias, weights = fit(train)
        x = np.asarray([s.features for s in train])
        act, _ = operating_points(1 / (1 + np.exp(-(x @ weights + bias))), np.asarray([s.right for s in train]))
        for sample in test:
            if 1 / (1 + math.exp(-(float(np.dot(sample.features, weights)) + bias))) >= act:
                acted += 1
                wrong += not sample.right
    return (
        f"leave one voice out ({len(voices)} voices): {acted} of {len(samples)} guesses acted on at once "
        f"({100 * acted / max(1, len(samples)):.0f} %), {wrong} of them wrong ({100 * wrong / max(1, acted):.2f} %)"
    )


@dataclass(frozen=True)
class NameSample:
    uid: str
    condition: str
    gain: float  # the ears' `name_gain`
    named: bool  # the host's name was said first
    in_text: bool  # ...and the transcript has it: the words say so, the gain is not needed
    slipped: bool = False  # the transcript's first word is the name a letter away ("Post sheriff")


def named_corpus(utterances: Sequence[Utterance]) -> list[Utterance]:
    """Moves and talk as they are said at the table, without the host's name, and the moves said to the
    host ("Host, cherry"): NAME_CARDS cards and NAME_CLUES clues a voice, and all its talk."""
    kept: list[Utterance] = []
    per_voice: dict[tuple[str, str], int] = {}
    for u in utterances:
        cap = {"card": NAME_CARDS, "lead-in": NAME_CARDS, "clue": NAME_CLUES, "talk": 1000}.get(u.kind, 0)
        key = (u.voice.id, u.kind)
        if u.board != "test" or per_voice.get(key, 0) >= cap:
            continue
        per_voice[key] = per_voice.get(key, 0) + 1
        kept.append(u)
        if u.kind != "talk":
            kept.append(replace(u, kind=f"named {u.kind}", text=f"{spoken_host_name(u.lang)}, {u.text}"))
    return kept


def collect_names(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path
) -> list[NameSample]:
    """How much the host's name said first explains the audio better, with and without it said (cached)."""

    def measure(utterance: Utterance, condition: Condition) -> NameSample:
        name = spoken_host_name(utterance.lang)
        cards = tuple(boards(utterance.lang)[utterance.board].cards)
        awaited = Awaited.GUESS if utterance.phase == "guess" else Awaited.CLUE
        moment = Moment(utterance.lang, awaited, visible=cards, listening=ListenMode.ADDRESSED, host_names=(name,))
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        named = utterance.kind.startswith("named")
        in_text = form_of(heard.text, utterance.lang).addressed
        gain = heard.name_gain if heard.name_gain is not None else -math.inf
        slipped = not in_text and name_slip(heard.text, utterance.lang, (name,)) > 0
        return NameSample(utterance.uid, condition.name, gain, named, in_text, slipped)

    todo = [(u, c) for u in named_corpus(utterances) for c in conditions]
    return measured("name", todo, measure, lambda row: NameSample(**row), cache)


@dataclass(frozen=True)
class PlaceSample:
    uid: str
    condition: str
    place: bool  # a place was said (else a card by its name: a place taken there is wrong)
    scored: bool  # the ears scored the places (the words sounded like one)
    chosen: bool  # ...and the move was taken for a place; then:
    features: tuple[float, ...]
    right: bool

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PlaceSample:
        return cls(**{**row, "features": tuple(row["features"])})


def collect_places(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path
) -> list[PlaceSample]:
    """For each place said by the tuning voices (every place of the test board), and each card said by
    its name on that board clean: whether the move was taken for a place, its features, and whether the
    card there is the card meant (cached)."""

    places = [(u, c) for c in conditions for u in utterances if u.kind in PLACE_KINDS]
    names = [(u, conditions[0]) for u in utterances if u.kind in ("card", "lead-in") and u.board == "test"]
    return [place_sample_of(*item) for item in hear_each(recognizer, places + names, cache, "places")]


def place_sample_of(utterance: Utterance, condition: Condition, heard: Heard) -> PlaceSample:
    """Whether the move was taken for a place, its features, and whether the card there is the one meant."""
    board = boards(utterance.lang)[utterance.board]
    grid = Grid(tuple(board.cards), board.grid.columns)
    said = understand(heard.text, phase=Phase.GUESS, cards=board.cards, lang=utterance.lang, grid=grid)
    placed = placed_move(heard, said, grid, utterance.lang)
    features = placed.features.vector() if placed is not None else ()
    place = utterance.kind in PLACE_KINDS
    right = placed is not None and placed.card == utterance.card and place
    return PlaceSample(
        utterance.uid, condition.name, place, heard.places is not None, placed is not None, features, right
    )


def place_model(samples: Sequence[PlaceSample]) -> tuple[Logistic, str]:
    """The place model fitted on the moves taken for a place, its operating points chosen as the card's."""
    chosen = [s for s in samples if s.chosen]
    as_samples = [Sample(s.uid, s.condition, s.features, s.right) for s in chosen]
    bias, weights = fit(as_samples)
    x = np.asarray([s.features for s in chosen])
    right = np.asarray([s.right for s in chosen])
    probabilities = 1 / (1 + np.exp(-(x @ weights + bias)))
    act, ask = operating_points(probabilities, right)
    said = [s for s in samples if s.place]
    names = [s for s in samples if not s.place]
    acted = [s for s in chosen if 1 / (1 + math.exp(-(float(np.dot(s.features, weights)) + bias))) >= act]
    summary = (
        f"{len(said)} places said: scored {sum(s.scored for s in said)}, taken for a place "
        f"{sum(s.chosen for s in said)}, the right card first {sum(s.right for s in said)}, acted on at once "
        f"{sum(s.right for s in acted)}; {len(names)} cards said by name: places scored "
        f"{sum(s.scored for s in names)}, taken for a place {sum(s.chosen for s in names)}, "
        f"acted on {sum(not s.place for s in acted)}"
    )
    model = Logistic(bias, tuple(float(w) for w in weights), round(act, 4), round(ask, 4))
    return model, summary


def name_points(samples: Sequence[NameSample]) -> tuple[float, float, float, str]:
    """The name gains from which an utterance whose transcript lacks the host's name counts as said to it:
    `act` above all but NAME_FALSE_RATE of the utterances said without it (a card merely mentioned must
    not become a move), `ask` above all but NAME_ASK_FALSE_RATE (asked back, never acted on: "Cereja?"
    now and then after a mere mention is a small price for not ignoring a move said to the host).

    `slip`: where the transcript's first word is the name a letter away ("Post sheriff"), the words and
    the gain say the same, so it counts from a lower gain: the lowest (not under `ask`) at which the lines
    said without the name that count as said to it, by `act` and by `slip` together, stay within the same
    NAME_FALSE_RATE."""
    unnamed_samples = [s for s in samples if not s.named and not s.in_text]
    unnamed = np.sort([s.gain for s in unnamed_samples])

    def point(false_rate: float) -> float:
        return float(unnamed[min(len(unnamed) - 1, math.ceil((1 - false_rate) * len(unnamed)))]) + 1e-3

    act, ask = point(NAME_FALSE_RATE), point(NAME_ASK_FALSE_RATE)
    spare = math.floor(NAME_FALSE_RATE * len(unnamed)) - int(np.sum(unnamed >= act))
    slipped = sorted((s.gain for s in unnamed_samples if s.slipped and s.gain < act), reverse=True)
    slip = _slip_point(act, ask, spare, slipped)
    lost = [s for s in samples if s.named and not s.in_text]
    said = sum(s.named for s in samples)
    by_slip = [s for s in lost if s.slipped and slip <= s.gain < act]
    summary = (
        f"{said - len(lost)} of {said} moves said to the host had the name in the transcript; "
        f"of the other {len(lost)}, {sum(s.gain >= act for s in lost)} were heard addressed by the gain, "
        f"{len(by_slip)} more by the gain with the name a letter away, "
        f"{sum(ask <= s.gain < act for s in lost) - len(by_slip)} more asked back; of {len(unnamed)} said "
        f"without it, {sum(unnamed >= act)} taken as addressed by the gain, "
        f"{sum(s.slipped and slip <= s.gain < act for s in unnamed_samples)} with the name a letter away "
        f"({sum(s.slipped for s in unnamed_samples)} such), {sum((unnamed >= ask) & (unnamed < act))} asked back"
    )
    return act, ask, slip, summary


def _slip_point(act: float, ask: float, spare: int, slipped: Sequence[float]) -> float:
    """The lowest gain (within `ask`..`act`) that takes at most `spare` of the `slipped` gains (best first)."""
    if spare < 0:  # the gain alone spends the whole allowance
        return act
    if spare >= len(slipped):
        return ask
    return min(act, max(ask, slipped[spare] + 1e-3))


def fit(samples: Sequence[Sample]) -> tuple[float, np.ndarray]:
    """Logistic regression by Newton's method on standardized features; the weights in raw units."""
    x = np.asarray([s.features for s in samples], dtype=np.float64)
    y = np.asarray([s.right for s in samples], dtype=np.float64)
    mean, std = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    w = np.zeros(z.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -60, 60)))
        gradient = z.T @ (p - y) + L2 * np.r_[0, w[1:]]
        hessian = (z * (p * (1 - p))[:, None]).T @ z + L2 * np.diag(np.r_[0, np.ones(len(w) - 1)])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = w[1:] / std
    bias = float(w[0] - (w[1:] * mean / std).sum())
    return bias, weights


def operating_points(probabilities: np.ndarray, right: np.ndarray) -> tuple[float, float]:
    """`act`: the lowest threshold whose acted-on cards are wrong at most WRONG_RATE_AT_ACT of the time;
    `ask`: below it, down to where the cards heard with about that probability (the MIN_BAND nearest) are
    right less than ASK_PRECISION of the time: a question back is worth it while the card is likely."""
    order = np.argsort(-probabilities)
    ranked, hits = probabilities[order], right[order]
    rate = np.cumsum(~hits) / np.arange(1, len(order) + 1)
    fine = np.nonzero(rate <= WRONG_RATE_AT_ACT)[0]
    act = float(ranked[fine.max()]) if len(fine) else 0.999
    ask = act
    for start in range(int(np.searchsorted(-ranked, -act)), len(ranked) - MIN_BAND + 1):
        if hits[start : start + MIN_BAND].mean() < ASK_PRECISION:
            break
        ask = float(ranked[start])
    return act, min(ask, act)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default="pt-BR,pt-PT,it,en")
    parser.add_argument("--conditions", default=",".join(DEFAULT_CONDITIONS))
    parser.add_argument(
        "--extra-conditions",
        default=",".join(EXTRA_CONDITIONS),
        help="more rooms, heard on the test board's guesses only (noise at other levels)",
    )
    parser.add_argument("--places", choices=("every", "some"), default="every", help="every place, or five of them")
    parser.add_argument("--boards", default="test,dealt-101,dealt-202", help="the boards whose guesses are heard")
    parser.add_argument(
        "--keep-names", action="store_true", help="keep the shipped calibration's points for the host's name"
    )
    parser.add_argument(
        "--no-examples", action="store_true", help="fit without the second signal (a baseline for the bench)"
    )
    parser.add_argument(
        "--moves-only",
        action="store_true",
        help=(
            "refit only the moves' points (clue numbers and the clue gate, pass, yes or no, the read-only commands "
            'from the scores alone, "Sorry?" once the game is over), keeping the rest as shipped'
        ),
    )
    parser.add_argument(
        "--names-only", action="store_true", help="refit only the points for the host's name, keep the rest"
    )
    parser.add_argument(
        "--unworded-only",
        action="store_true",
        help="refit only the open way's point for cards the words do not name (after a full fit), keep the rest",
    )
    parser.add_argument(
        "--places-only", action="store_true", help="refit only the place model (places said and names), keep the rest"
    )
    parser.add_argument(
        "--unworded-places-only",
        action="store_true",
        help="refit only the open way's point for cards named by a place the words do not say, keep the rest",
    )
    parser.add_argument(
        "--undo-only",
        action="store_true",
        help='refit only the point from which a garbled "undo" is taken while a clue is awaited, keep the rest',
    )
    parser.add_argument(
        "--answers-only",
        action="store_true",
        help='refit only the points for "yes" and "no" heard only by the scores (alone and at games), keep the rest',
    )
    parser.add_argument(
        "--room-conditions",
        default="babble-10-reverb",
        help="the talking rooms the tuning voices play whole games in for the answers' points (none: empty)",
    )
    parser.add_argument("--room-games", type=int, default=ROOM_GAMES, help="games a language plays in each room")
    parser.add_argument("--quick", action="store_true", help="a few utterances (a smoke test)")
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--write", action="store_true", help=f"write the fitted calibration to {TARGET}")
    options = parser.parse_args(argv)
    arguments = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m bench.calibrate", *arguments])  # what the calibration records it was fitted by
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.speech_models import Manifest, require

    langs = [Lang.parse(tag) for tag in options.langs.split(",")]
    conditions = [Condition.parse(name) for name in options.conditions.split(",")]
    extra = [Condition.parse(name) for name in options.extra_conditions.split(",") if name.strip()]
    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    chosen = set(options.boards.split(","))
    utterances = [
        u for lang in langs for u in corpus(lang, voices_of(lang, "tune"), quick=options.quick) if u.board in chosen
    ]
    if options.names_only:
        return _write_names(calibration(), recognizer, utterances, conditions, options)
    if options.unworded_only:
        return _write_unworded(calibration(), recognizer, utterances, conditions, options.cache, options.write, command)
    if options.unworded_places_only:
        said = [*_tuning_places(langs, options), *utterances]
        return _write_unworded_places(calibration(), recognizer, said, conditions, options, command)
    if options.undo_only:
        return _write_undo(calibration(), recognizer, utterances, conditions, options.cache, options.write, command)
    if options.places_only:
        placed, summary = _places(recognizer, langs, utterances, conditions, options)
        shipped = calibration()
        fitted = {**shipped.fitted, "place": summary, "place_command": command}
        print(f"[calibrate] {summary}", file=sys.stderr)
        return _publish(replace(shipped, place=placed, fitted=fitted), options.write)
    room = _room_answers(recognizer, langs, options)  # every fit still to come weighs the answers
    if options.answers_only:
        return _write_answers(calibration(), recognizer, utterances, conditions, room, options, command)
    moves = move_points(recognizer, utterances, conditions, options.cache, measured, room)
    for line in moves.summaries:
        print(f"[calibrate] {line}", file=sys.stderr)
    if options.moves_only:
        return _write_moves(calibration(), moves, options.write, command)
    heard = guesses_heard(recognizer, utterances, conditions, extra, options.cache)
    if options.no_examples:  # the second signal left out: weighed nothing, its features neutral
        heard = [(utterance, condition, replace(said, examples=None)) for utterance, condition, said in heard]
    weight, weight_summary = example_weight(heard) if not options.no_examples else (0.0, "left out (--no-examples)")
    found = (sample_of(u, c, h, weight) for u, c, h in heard)
    samples = [sample for sample in found if sample is not None]
    bias, weights = fit(samples)
    x = np.asarray([s.features for s in samples])
    right = np.asarray([s.right for s in samples])
    probabilities = 1 / (1 + np.exp(-(x @ weights + bias)))
    act, ask = operating_points(probabilities, right)
    shipped = calibration()
    if options.keep_names:
        name_gain, name_ask, name_slip = shipped.name_gain, shipped.name_ask, shipped.name_slip
        name_summary = str(shipped.fitted.get("name", "kept"))
    else:
        name_gain, name_ask, name_slip, name_summary = name_points(
            collect_names(recognizer, utterances, conditions[:NAME_CONDITIONS], options.cache)
        )
    placed, place_summary = _places(recognizer, langs, utterances, conditions, options)
    voices = sorted({u.voice.id for u in utterances})
    fitted = {
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "voices": voices,
        "conditions": [c.name for c in conditions],
        "extra_conditions": [f"{c.name} (test board)" for c in extra],
        "samples": len(samples),
        "first_card_right": round(float(right.mean()), 3),
        "at_act": f"{int((probabilities >= act)[right].sum())} of {int(right.sum())} right cards acted on at once",
        "held_out_voices_of_the_tuning_set": leave_one_voice_out(samples),
        "examples": weight_summary,
        "name": name_summary,
        "place": place_summary,
        "moves": list(moves.summaries),
    }
    calibration_fitted = Calibration(
        bias=bias,
        weights=tuple(float(w) for w in weights),
        act=round(act, 4),
        ask=round(ask, 4),
        answer_share=moves.answer_share,
        answer_by_lang=moves.answer_by_lang,
        yes_by_lang=moves.yes_by_lang,
        pass_share=moves.pass_share,
        number_sure=moves.number_sure,
        clue_floor=moves.clue_gate.floor,
        clue_gap=moves.clue_gate.gap,
        ending_gap=moves.ending_gap,
        ending_ask=moves.ending_ask,
        read_only_share=moves.read_only_share,
        pass_alone_share=moves.pass_alone_share,
        pass_ask_share=moves.pass_ask_share,
        name_gain=round(name_gain, 3),
        name_ask=round(name_ask, 3),
        name_slip=round(name_slip, 3),
        fitted=fitted,
        place=placed,
        example_weight=weight,
        # the points chosen on these models' probabilities are kept: refitted by --unworded-only,
        # --unworded-places-only and --undo-only
        unworded_act=shipped.unworded_act,
        unworded_words=shipped.unworded_words,
        talk_ask=shipped.talk_ask,
        talk_ask_words=shipped.talk_ask_words,
        place_unworded_act=shipped.place_unworded_act,
        place_unworded_words=shipped.place_unworded_words,
        undo_gap=shipped.undo_gap,
    )
    for name, value in zip(FEATURES, weights, strict=True):
        print(f"{name:14} {value:+.3f}", file=sys.stderr)
    return _publish(calibration_fitted, options.write)


def _places(
    recognizer: Any,
    langs: Sequence[Lang],
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    options: argparse.Namespace,
) -> tuple[Logistic, str]:
    """The place model fitted on the tuning voices' places (`--places`: every one, or five) and on their
    cards said by name (`utterances`), clean and in the first noisy condition."""
    said = [*_tuning_places(langs, options), *utterances]
    return place_model(collect_places(recognizer, said, conditions[:PLACE_CONDITIONS], options.cache))


def _tuning_places(langs: Sequence[Lang], options: argparse.Namespace) -> list[Utterance]:
    """The tuning voices' places on the test board (`--places`: every one, or five of them)."""
    every = options.places == "every"
    return [u for lang in langs for u in place_corpus(lang, voices_of(lang, "tune"), every=every)]


def _write_names(
    shipped: Calibration,
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    options: argparse.Namespace,
) -> int:
    """The shipped calibration with the host's name's points refitted (`--names-only`)."""
    gain, ask, slip, summary = name_points(
        collect_names(recognizer, utterances, conditions[:NAME_CONDITIONS], options.cache)
    )
    command = f"python -m bench.calibrate --names-only --conditions {options.conditions} --boards {options.boards}"
    fitted = {**shipped.fitted, "name": summary, "name_command": command}
    refitted = replace(
        shipped, name_gain=round(gain, 3), name_ask=round(ask, 3), name_slip=round(slip, 3), fitted=fitted
    )
    print(f"[calibrate] {summary}", file=sys.stderr)
    return _publish(refitted, options.write)


def _write_unworded(
    shipped: Calibration,
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache: Path,
    write: bool,
    command: str,
) -> int:
    """The shipped calibration with the open way's point for cards the words do not name refitted
    (`--unworded-only`), on the shipped guess model's probabilities (its act is the point's lowest)."""
    samples = collect_unworded(recognizer, utterances, conditions, cache, measured)
    chosen = unworded_point(samples, shipped.act)
    summary = unworded_summary(samples, chosen)
    talk_ask = talk_ask_point(samples, shipped.ask)
    talk_summary = talk_ask_summary(samples, talk_ask)
    print(f"[calibrate] {summary}\n[calibrate] {talk_summary}", file=sys.stderr)
    fitted = {**shipped.fitted, "unworded": summary, "talk_ask": talk_summary, "unworded_command": command}
    refitted = replace(
        shipped,
        unworded_act=chosen.act,
        unworded_words=chosen.words,
        talk_ask=talk_ask.act,
        talk_ask_words=talk_ask.words,
        fitted=fitted,
    )
    return _publish(refitted, write)


def _write_unworded_places(
    shipped: Calibration,
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    options: argparse.Namespace,
    command: str,
) -> int:
    """The shipped calibration with the open way's point for a card named by a place the words do not say
    refitted (`--unworded-places-only`), on the shipped place model's probabilities (its act is the lowest)."""
    if shipped.place is None:
        raise SystemExit("the shipped calibration has no place model: fit it first (--places-only)")
    samples = collect_unworded_places(recognizer, utterances, conditions, options.cache, measured)
    chosen = place_point(samples, shipped.place.act)
    summary = place_summary(samples, chosen)
    print(f"[calibrate] {summary}", file=sys.stderr)
    fitted = {**shipped.fitted, "place_unworded": summary, "place_unworded_command": command}
    refitted = replace(shipped, place_unworded_act=chosen.act, place_unworded_words=chosen.words, fitted=fitted)
    return _publish(refitted, options.write)


def _write_undo(
    shipped: Calibration,
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache: Path,
    write: bool,
    command: str,
) -> int:
    """The shipped calibration with the point for a garbled "undo" while a clue is awaited refitted
    (`--undo-only`)."""
    samples = collect_undos(recognizer, utterances, conditions, cache, measured)
    chosen = undo_point(samples, shipped.undo_gap)
    summary = undo_summary(samples, chosen)
    print(f"[calibrate] {summary}", file=sys.stderr)
    fitted = {**shipped.fitted, "undo": summary, "undo_command": command}
    return _publish(replace(shipped, undo_gap=chosen, fitted=fitted), write)


def _room_answers(recognizer: Any, langs: Sequence[Lang], options: argparse.Namespace) -> list[MoveSample]:
    """The lines the tuning voices' games heard while a question waited (`bench.calibrate_answers`); none
    for a smoke test or when no room is asked for."""
    rooms = [Condition.parse(name) for name in options.room_conditions.split(",") if name.strip()]
    if options.quick or not rooms:
        return []
    games = ("bench/calibrate_answers.py", "bench/players.py", "bench/table.py")  # how the games are played
    played = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in games)).hexdigest()[:8]
    store = options.cache.parent / f"room-answers-{_code_version()}-{played}.json"
    return collect_room_answers(recognizer, langs, rooms, options.cache, store, options.room_games)


def _write_answers(
    shipped: Calibration,
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    room: Sequence[MoveSample],
    options: argparse.Namespace,
    command: str,
) -> int:
    """The shipped calibration with the answers' points refitted (`--answers-only`) on the answers said alone
    and the lines heard while a question waited at the tuning voices' games."""
    answers = collect_commands(recognizer, utterances, conditions, options.cache, measured, Command.YES)
    fitted = answer_fit([*answers, *room], shipped.answer_share)
    # only the languages heard are refitted (`--langs`): the others, and the pooled point unless every
    # language was heard, stay as shipped
    langs = {utterance.lang.value for utterance in utterances}
    every = langs >= {lang.value for lang in Lang}
    summaries = list(fitted.summaries if every else fitted.summaries[1:])  # the first: the pooled point
    for line in summaries:
        print(f"[calibrate] {line}", file=sys.stderr)
    when = f"{time.strftime('%Y-%m-%d')}, {', '.join(sorted(langs))}"
    record = {**shipped.fitted, "answers": [when, *summaries], "answers_command": command}
    refitted = replace(
        shipped,
        answer_share=fitted.share if every else shipped.answer_share,
        answer_by_lang={**shipped.answer_by_lang, **{k: v for k, v in fitted.by_lang.items() if k in langs}},
        yes_by_lang={**shipped.yes_by_lang, **{k: v for k, v in fitted.yes_by_lang.items() if k in langs}},
        fitted=record,
    )
    return _publish(refitted, options.write)


def _write_moves(shipped: Calibration, moves: MovePoints, write: bool, command: str) -> int:
    """The shipped calibration with the moves' points refitted (`--moves-only`), and the command that did it."""
    fitted = {**shipped.fitted, "moves": list(moves.summaries), "moves_command": command}
    refitted = replace(
        shipped,
        number_sure=moves.number_sure,
        clue_floor=moves.clue_gate.floor,
        clue_gap=moves.clue_gate.gap,
        pass_share=moves.pass_share,
        answer_share=moves.answer_share,
        answer_by_lang=moves.answer_by_lang,
        yes_by_lang=moves.yes_by_lang,
        ending_gap=moves.ending_gap,
        ending_ask=moves.ending_ask,
        read_only_share=moves.read_only_share,
        pass_alone_share=moves.pass_alone_share,
        pass_ask_share=moves.pass_ask_share,
        fitted=fitted,
    )
    return _publish(refitted, write)


def _publish(fitted: Calibration, write: bool) -> int:
    """A calibration printed, and written to TARGET when asked (`--write`)."""
    text = json.dumps(fitted.to_dict(), indent=1)
    print(text)
    if write:
        TARGET.write_text(text + "\n", encoding="utf-8")
        print(f"[calibrate] written to {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
