"""A card named by its place, weighed from the scores (voicehost/decision/places.py): the ears score the
grid's places as transcripts when the words sound like one, and the decision takes the place scored
first when it explains the audio better than every card's name, or when the words read as a place.

Logic only, on made-up scores; the real Whisper model on synthetic speech is in
tests/voice/test_positions_voice.py, and the bench reports places by voice (bench/places.py).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest

from engine.lang import Lang
from voicehost.decision import FEATURES, Calibration, calibration
from voicehost.decision import decide as decide_read
from voicehost.decision.calibration import Logistic, use
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import Action, HeardGuess, NotUnderstood, Understanding
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.positions import Grid, places_to_score, scored_places
from voicehost.understanding.reading import Reading

CARDS = tuple(f"CARD{i:02}" for i in range(25))
GRID = Grid(CARDS, 5)
PICTURES = Grid(CARDS[:20], 5)  # 5 columns, 4 rows


def scores(phrases: dict[str, float]) -> ClosedSet:
    """Phrases with their prior-adjusted scores (the raw ones 1 nat above), best first."""
    ordered = sorted(phrases, key=lambda phrase: -phrases[phrase])
    top = max(phrases.values())
    weights = [math.exp(phrases[p] - top) for p in ordered]
    total = sum(weights)
    return ClosedSet(
        tuple(ordered),
        tuple(phrases[p] + 1 for p in ordered),
        tuple(phrases[p] for p in ordered),
        tuple(w / total for w in weights),
    )


def places_scored(best: str, lead: float, lang: Lang = Lang.EN) -> ClosedSet:
    """Every scored way of every place at -30, the ways of `best` (a label) `lead` nats higher."""
    found = {}
    for way in scored_places(lang):
        found[way.phrase] = -30.0 + (lead if f"{chr(64 + way.column)}{way.row}" == best else 0.0)
    return scores(found)


def heard(text: str, *, names: dict[str, float], places: ClosedSet | None) -> Heard:
    """Every card's name scored (at -50 unless given), and the places."""
    return Heard(
        text, 0.5, transcript_logprob=-5.0, closed=scores({**dict.fromkeys(CARDS, -50.0), **names}), places=places
    )


def decide(
    said: Heard, grid: Grid = GRID, model: Calibration | None = None, covered: tuple[str, ...] = ()
) -> Understanding:
    """The decision on `said` while guessing, every card of `grid` visible but the `covered` ones."""
    moment = Moment(Lang.EN, Awaited.GUESS, visible=tuple(c for c in grid.cards if c not in covered), grid=grid)
    return decide_read(said, Reading(said.text, moment, said.confidence), model)


SHARE_ONLY = (12.0, *[0.0] * (len(FEATURES) - 1))
SURE = replace(calibration(), place=Logistic(bias=-6.0, weights=SHARE_ONLY, act=0.9, ask=0.5))
"""A place model that acts on a share above ~0.68 and asks back from 0.5: what the tests need to see."""


def test_a_place_that_explains_the_audio_better_than_every_name_is_the_card_there() -> None:
    said = heard("Rho 2 column 3", names={"CARD00": -40.0, "CARD01": -41.0}, places=places_scored("C2", 20.0))
    understood = decide(said, model=SURE)
    assert isinstance(understood, HeardGuess)
    assert (understood.card, understood.place, understood.action) == ("CARD07", "C2", Action.ACCEPT)


def test_a_name_that_explains_the_audio_better_is_taken_by_its_name() -> None:
    said = heard("that card", names={"CARD03": -2.0, "CARD04": -9.0}, places=places_scored("C2", 5.0))
    understood = decide(said, model=SURE)
    assert isinstance(understood, HeardGuess)
    assert understood.place == "" and understood.card == "CARD03"


def test_words_that_read_as_a_place_make_it_a_place_even_below_a_name() -> None:
    said = heard("row two column three", names={"CARD03": -2.0}, places=places_scored("C2", 5.0))
    understood = decide(said, model=SURE)
    assert isinstance(understood, HeardGuess) and understood.place == "C2"


def test_a_covered_cards_place_found_by_the_scores_alone_is_no_move() -> None:
    # MBROLA pt1's "perfume" scored as "bê uma" (B1), where COLHER was covered: "COLHER is already covered"
    said = heard("Bem fomem!", names={"CARD03": -8.0, "CARD04": -14.0}, places=places_scored("B1", 30.0))
    understood = decide(said, model=SURE, covered=("CARD01",))
    assert isinstance(understood, HeardGuess | NotUnderstood)
    assert not (isinstance(understood, HeardGuess) and understood.place)
    assert not isinstance(understood, HeardGuess) or understood.card == "CARD03"
    visible_there = decide(said, model=SURE)
    assert isinstance(visible_there, HeardGuess) and visible_there.place == "B1"


def test_a_covered_cards_place_said_in_words_is_still_that_place() -> None:
    said = heard("row one column two", names={"CARD03": -2.0}, places=places_scored("B1", 5.0))
    understood = decide(said, model=SURE, covered=("CARD01",))
    assert isinstance(understood, HeardGuess) and (understood.card, understood.place) == ("CARD01", "B1")


def test_an_unsure_place_is_asked_back_and_a_doubtful_one_asked_again() -> None:
    unsure = replace(SURE, place=replace(SURE.place, bias=-11.5))  # type: ignore[type-var]
    said = heard("Rho 2 column 3", names={"CARD00": -40.0}, places=places_scored("C2", 20.0))
    understood = decide(said, model=unsure)
    assert isinstance(understood, HeardGuess) and understood.action is Action.CONFIRM
    doubtful = heard("Rho column", names={"CARD00": -40.0}, places=places_scored("C2", 0.5))
    again = decide(doubtful, model=SURE)
    assert isinstance(again, NotUnderstood) and again.action is Action.REPROMPT


def test_without_a_place_model_a_place_is_never_acted_on_from_the_scores() -> None:
    bare = replace(calibration(), place=None)
    said = heard("Rho 2 column 3", names={"CARD00": -40.0}, places=places_scored("C2", 20.0))
    understood = decide(said, model=bare)
    assert isinstance(understood, HeardGuess) and understood.action is Action.CONFIRM


def test_a_place_off_a_smaller_grid_is_never_taken() -> None:
    said = heard("Rho 5 column 1", names={"CARD00": -40.0}, places=places_scored("A5", 20.0))
    understood = decide(said, PICTURES, model=SURE)
    assert not (isinstance(understood, HeardGuess) and understood.place == "A5")


def test_typed_places_are_read_as_before() -> None:
    typed = decide(Heard("B3"))
    assert isinstance(typed, HeardGuess) and (typed.card, typed.action) == ("CARD11", Action.ACCEPT)


@pytest.mark.parametrize("lang", list(Lang))
def test_every_place_is_scored_four_ways_and_no_way_names_two_places(lang: Lang) -> None:
    ways = scored_places(lang)
    per_place = Counter((way.row, way.column) for way in ways)
    assert len(per_place) == 25 and set(per_place.values()) <= {3, 4}  # "C2" may be written as said
    assert len({way.phrase for way in ways}) == len(ways)
    assert sum(way.long for way in ways) == 50


@pytest.mark.parametrize(
    ("lang", "text", "ways"),
    [
        (Lang.EN, "Rho 2 column 3", 100),
        (Lang.EN, "Round Win column 1", 100),
        (Lang.PT_BR, "Lína-vos columa 3.", 100),
        (Lang.IT, "rega uno colonna uno", 100),
        (Lang.PT_BR, "Se dois.", 50),  # a letter and a number: the short ways only
        (Lang.IT, "T2", 50),
    ],
)
def test_garbled_places_are_scored(lang: Lang, text: str, ways: int) -> None:
    assert len(places_to_score(text, lang)) == ways


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        (Lang.EN, "cherry"),
        (Lang.EN, "I think it's the island."),
        (Lang.PT_BR, "Eu acho que é o castor."),
        (Lang.IT, "gelato"),
    ],
)
def test_names_and_lead_ins_are_not(lang: Lang, text: str) -> None:
    assert places_to_score(text, lang) == ()


@pytest.mark.parametrize(("said", "talk"), [("C₂. C₁. C", False), ("C2 C2 C2", False), ("is it C2 or C3?", True)])
def test_a_place_whisper_wrote_out_again_is_no_talk(said: str, talk: bool) -> None:
    """ "cê dois" transcribed "C₂. C₁. C": more words than a move has, but every one of them says a place;
    the place the scores found is taken up. A question about places stays talk."""
    moment = Moment(Lang.EN, Awaited.GUESS, visible=GRID.cards, grid=GRID)
    taken = take_up(heard(said, names={}, places=places_scored("C2", 20.0)), moment)
    assert (taken.verdict is Attention.IGNORE) is talk, taken
    if not talk:
        assert isinstance(taken.understood, HeardGuess) and taken.understood.place == "C2"


@pytest.mark.parametrize(
    ("said", "talk"),
    [
        ("R3 Column 4", False),  # "row three column four": its "row" garbled
        ("Rho 3-Column 4", False),
        ("2. Rotu column 3", False),
        ("row 3 column 4 is card07", True),  # a card named beside the place: talk about it
        ("row three looks risky, column four maybe", True),  # more than one word that is no place word
        ("R3 column 4?", True),  # a question about a place
    ],
)
def test_a_place_with_its_row_word_garbled_is_no_talk(said: str, talk: bool) -> None:
    """A place whose "row" or "column" Whisper garbled ("R3 Column 4") met silence as talk, though its scores
    found the place: one word that is no place word and names no card, beside place words, is still the
    place. A card named beside it, more garbled words, or a question stay talk."""
    moment = Moment(Lang.EN, Awaited.GUESS, visible=GRID.cards, grid=GRID)
    taken = take_up(heard(said, names={}, places=places_scored("D3", 20.0)), moment)
    assert (taken.verdict is Attention.IGNORE) is talk, taken
    if not talk:
        assert isinstance(taken.understood, HeardGuess) and taken.understood.place == "D3"


@pytest.mark.parametrize(
    ("said", "place_act", "verdict", "action"),
    [
        ("Rho 4 column 5.", None, Attention.ASK_BACK, Action.CONFIRM),  # no point chosen: asked back ("E4, CARD19?")
        ("Rho 4 column 5.", 0.95, Attention.TAKE, Action.ACCEPT),  # sure, in a place's few words
        ("Rho 4 column 5.", 0.9999, Attention.ASK_BACK, Action.CONFIRM),  # not sure enough
        ("Round four calling five.", 0.95, Attention.TAKE, Action.ACCEPT),  # words that read as talk: a place still
        ("I said round four calling five okay", 0.95, Attention.IGNORE, Action.CONFIRM),  # seven words: talk
        ("Round four calling five?", 0.95, Attention.IGNORE, Action.ACCEPT),  # a question about a place: talk
    ],
)
def test_a_place_the_scores_alone_find_is_acted_on_from_its_calibrated_point(
    said: str, place_act: float | None, verdict: Attention, action: Action
) -> None:
    """ "row four column five" written "Rho 4 column 5." or "Round four calling five.": the words read as no
    place, the place's scores are sure. The open way acts on it at once only from `place_unworded_act` and in at
    most `place_unworded_words` words (5 here), both chosen on the tuning voices' places, names and talk; else
    it asks back, and a line as long as talk stays talk."""
    model = replace(SURE, place_unworded_act=place_act, place_unworded_words=5)
    use(model)
    try:
        moment = Moment(Lang.EN, Awaited.GUESS, visible=GRID.cards, grid=GRID)
        taken = take_up(heard(said, names={}, places=places_scored("E4", 20.0)), moment)
    finally:
        use(None)
    assert taken.verdict is verdict, taken
    if verdict is not Attention.IGNORE:
        understood = taken.understood
        assert isinstance(understood, HeardGuess) and (understood.card, understood.place) == ("CARD19", "E4")
        assert understood.action is action
