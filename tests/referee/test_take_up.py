"""Taking up one utterance (`voicehost.referee.take_up`): the one step the host and the bench share, so
the bench measures what the host does (the clue check, the key-request rule, the name heard unsaid)."""

from __future__ import annotations

import math

import pytest

from bench.recognition import host_hears
from engine.lang import Lang
from voicehost.decision import calibration
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import TakenUp, heard_afresh, take_up
from voicehost.understanding import Action, HeardCommand, HeardGuess
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.results import Command, HeardClueCheck

CARDS = ("WALRUS", "PIANO", "OCEAN", "CHERRY")


def moment(guessing: bool, listening: ListenMode = ListenMode.OPEN) -> Moment:
    return Moment(Lang.EN, Awaited.GUESS if guessing else Awaited.CLUE, visible=CARDS, listening=listening)


@pytest.mark.parametrize(
    ("said", "listening"), [("is ocean allowed?", ListenMode.OPEN), ("Host, is ocean allowed?", ListenMode.ADDRESSED)]
)
def test_a_clue_check_is_a_request_not_talk_nor_a_clue(said: str, listening: ListenMode) -> None:
    taken = take_up(Heard(said), moment(False, listening))
    assert isinstance(taken.understood, HeardClueCheck) and taken.understood.word == "ocean"
    assert taken.understood.command is Command.CHECK_CLUE
    assert not taken.form.talk and taken.verdict is Attention.TAKE


def test_the_bench_hears_as_the_host_takes_up() -> None:
    for text, guessing in (("is ocean allowed?", False), ("walrus", True), ("Host, maybe the piano", True)):
        taken = take_up(Heard(text), moment(guessing))
        heard = host_hears(Heard(text), Lang.EN, CARDS, guessing=guessing, answering=False, listening=ListenMode.OPEN)
        assert heard == (taken.verdict, taken.understood)


def test_a_hedged_move_is_asked_back_and_stays_hedged_heard_afresh() -> None:
    taken = take_up(Heard("Host, maybe the piano"), moment(True))
    assert taken.form.addressed and taken.hedge
    assert isinstance(taken.understood, HeardGuess) and taken.understood.action is Action.CONFIRM
    again = heard_afresh(taken, Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",)))
    assert isinstance(again, HeardGuess) and again.card == "PIANO" and again.action is Action.CONFIRM


def test_the_name_heard_but_not_written_counts_surely_or_is_asked_back() -> None:
    points = calibration()
    if not (math.isfinite(points.name_ask) and points.name_ask < points.name_gain):
        pytest.skip("no name-gain band calibrated")
    sure = take_up(Heard("walrus", name_gain=points.name_gain + 1), moment(True, ListenMode.ADDRESSED))
    assert sure.named is Attention.TAKE and sure.verdict is Attention.TAKE and not sure.hedge
    assert isinstance(sure.understood, HeardGuess) and sure.understood.action is Action.ACCEPT
    likely = (points.name_ask + points.name_gain) / 2
    maybe = take_up(Heard("walrus", name_gain=likely), moment(True, ListenMode.ADDRESSED))
    assert maybe.named is Attention.ASK_BACK and maybe.hedge
    assert isinstance(maybe.understood, HeardGuess) and maybe.understood.action is Action.CONFIRM
    unsaid = take_up(Heard("walrus", name_gain=points.name_ask - 1), moment(True, ListenMode.ADDRESSED))
    assert unsaid.named is None and unsaid.verdict is Attention.HINT


def test_a_garbled_name_is_no_talk_and_a_likely_named_line_is_never_met_by_silence() -> None:
    """ "Aprementa-lo, impresoga": the name garbled into two words made the line look like talk (three
    words); with the name heard by the ears, what follows it is judged alone. A likely-named line the
    host cannot read, though it sounds like a card, gets "Sorry?"; talk after a name-like start stays talk."""
    points = calibration()
    if not (math.isfinite(points.name_ask) and points.name_ask < points.name_gain):
        pytest.skip("no name-gain band calibrated")
    likely = (points.name_ask + points.name_gain) / 2
    addressed = moment(True, ListenMode.ADDRESSED)
    garbled = take_up(Heard("Hostly-go, walrus", name_gain=likely, name_words=1), addressed)
    assert garbled.named is Attention.ASK_BACK and not garbled.form.talk and garbled.verdict is Attention.TAKE
    assert isinstance(garbled.understood, HeardGuess) and garbled.understood.card == "WALRUS"
    half = take_up(Heard("Hostly-go, wobble", name_gain=likely, name_words=1), addressed)
    assert half.verdict is Attention.SORRY
    talk = take_up(Heard("Hostly-go, is it the walrus or the piano?", name_gain=likely, name_words=1), addressed)
    assert talk.verdict is Attention.IGNORE


def test_the_name_written_a_letter_away_is_likely_the_name_and_asked_back() -> None:
    """Whisper writes an English "host" as "post" or "Oost", the ears' name gain under its point ("post
    pass": 18 silences in one game the addressed way). The name a letter away, then a move: asked back,
    never acted on at once; then talk, or a word a letter away from no name: let be."""
    addressed = moment(True, ListenMode.ADDRESSED)
    passed = take_up(Heard("post pass", name_gain=-11.0), addressed)
    assert passed.named is Attention.ASK_BACK and passed.hedge and passed.verdict is Attention.TAKE
    assert isinstance(passed.understood, HeardCommand) and passed.understood.command is Command.PASS
    assert passed.understood.action is not Action.ACCEPT
    card = take_up(Heard("Oost walrus", name_gain=-11.0), addressed)
    assert isinstance(card.understood, HeardGuess) and card.understood.card == "WALRUS" and card.hedge
    for talk in ("most of them are animals, right?", "toast walrus", "horse walrus"):
        assert take_up(Heard(talk, name_gain=-11.0), addressed).verdict is Attention.IGNORE, talk


def test_the_name_a_letter_away_counts_at_once_where_the_gain_agrees() -> None:
    """ "Post sheriff" for "host, sheriff": the words say the name a letter away and the ears' gain says it
    likely; from the point calibrated for such lines (`name_slip`), the move is taken at once, not asked
    back. Under it, or with the gain alone (no slip in the words), it is asked back as before; talk after
    the slip stays talk."""
    points = calibration()
    if not (math.isfinite(points.name_slip) and points.name_ask <= points.name_slip < points.name_gain):
        pytest.skip("no band calibrated for the name a letter away")
    addressed = moment(True, ListenMode.ADDRESSED)
    agreed = take_up(Heard("Post walrus", name_gain=points.name_slip + 0.01, name_words=1), addressed)
    assert agreed.named is Attention.TAKE and not agreed.hedge and agreed.verdict is Attention.TAKE
    assert isinstance(agreed.understood, HeardGuess) and agreed.understood.card == "WALRUS"
    assert agreed.understood.action is Action.ACCEPT
    passed = take_up(Heard("post pass", name_gain=points.name_slip + 0.01, name_words=1), addressed)
    assert isinstance(passed.understood, HeardCommand) and passed.understood.command is Command.PASS
    assert not passed.hedge and passed.verdict is Attention.TAKE
    below = points.name_slip - 0.01
    if below >= points.name_ask:
        weaker = take_up(Heard("Post walrus", name_gain=below, name_words=1), addressed)
        assert weaker.named is Attention.ASK_BACK and weaker.hedge
    unslipped = take_up(Heard("walrus", name_gain=points.name_slip + 0.01), addressed)
    assert unslipped.named is Attention.ASK_BACK and unslipped.hedge
    talk = take_up(Heard("most of them are animals, right?", name_gain=points.name_slip + 0.01), addressed)
    assert talk.verdict is Attention.IGNORE


TALK_AND_MOVES = [
    ("is it the ocean?", "ignore"),
    ("no, not the ocean", "ignore"),
    ("maybe the ocean, or", "ignore"),
    ("the ocean", "accept"),
    ("Host, maybe the piano", "confirm"),
]


@pytest.mark.parametrize(("said", "action"), TALK_AND_MOVES)
def test_voicehost_hear_gives_the_hosts_own_verdict(said: str, action: str) -> None:
    """`voicehost hear` takes an utterance up through the host's own step: table talk is reported as
    ignored, as the host ignores it, never as a guess to act on or confirm."""
    from voicehost.cli.hearing import verdict

    moment = Moment(Lang.EN, Awaited.GUESS, visible=CARDS)
    result = verdict(Heard(said), moment, "test").result
    assert result["action"] == action
    taken = take_up(Heard(said), moment)
    assert (taken.verdict is Attention.IGNORE) == (action == "ignore")
    if action != "ignore":
        assert result["card"] in CARDS


def test_a_lone_yes_heard_unsure_with_nothing_asked_is_let_be_whatever_the_scores() -> None:
    """ "Yes" after a good reveal, heard unsure, with a card scored half as high as a question needs: no
    word of it could name a move, so it gets silence, not "Sorry?"."""
    logits = (-1.0, -1.7, -1.7, -1.7)
    closed = ClosedSet(("WALRUS", "PIANO", "OCEAN", "CHERRY"), logits, logits, (0.4, 0.2, 0.2, 0.2))
    taken = take_up(Heard("Yes", 0.33, closed=closed, transcript_logprob=-1.0), moment(True))
    assert not isinstance(taken.understood, HeardGuess)
    assert taken.verdict is Attention.IGNORE


def _asked(card: str) -> Moment:
    """ "CARD?" waits for its answer, every card of CARDS still visible."""
    return Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=(card,), before=((card, 0.5),))


def test_at_a_question_another_card_leading_the_scores_is_no_yes() -> None:
    """ "WALRUS?" - "piano" (half heard): "yes" scores above WALRUS, but PIANO above both. Weighed among
    the card asked about and "yes" alone, "piano" would be a sure "yes" and reveal WALRUS; every visible
    card is scored while a question waits, so it is no answer, and is heard afresh as a guess."""
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "yes", "no")
    logits = (-9.0, -1.0, -9.0, -9.0, -2.0, -9.0)
    closed = ClosedSet(phrases, logits, logits, (0.0, 0.7, 0.0, 0.0, 0.3, 0.0))
    asked = _asked("WALRUS")
    assert asked.scored_cards == CARDS
    taken = take_up(Heard("pianu", 0.2, closed=closed, transcript_logprob=-1.0), asked)
    assert not isinstance(taken.understood, HeardCommand)
    again = heard_afresh(taken, asked)
    assert isinstance(again, HeardGuess) and again.card == "PIANO"


@pytest.mark.parametrize(
    ("said", "action"), [("Gimme.", Action.CONFIRM), ("pianu", Action.CONFIRM), ("piano", Action.ACCEPT)]
)
def test_at_a_question_a_card_only_the_scores_found_is_asked_back_heard_afresh(said: str, action: Action) -> None:
    """ "PESCADOR?" - "sim", in a din, heard "Siena" and scored as HIENA surely enough to act on: the line
    came as an answer, so a card its words do not name exactly (nothing, or a slip away) is asked back,
    never revealed at once; a card its words name ("WALRUS?" - "piano") is acted on as ever."""
    from dataclasses import replace

    from voicehost.decision import FEATURES
    from voicehost.decision.calibration import Logistic, use

    sure = Logistic(5.0, (0.0,) * len(FEATURES), act=0.9, ask=0.7)  # every card at 0.99: acted on at once
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "yes", "no")
    logits = (-9.0, -0.1, -9.0, -9.0, -4.0, -9.0)
    closed = ClosedSet(phrases, logits, logits, (0.0, 0.98, 0.0, 0.0, 0.02, 0.0))
    asked = _asked("WALRUS")
    use(replace(calibration(), by_lang={"en": sure}))
    try:
        taken = take_up(Heard(said, 0.2, closed=closed, transcript_logprob=-1.0), asked)
        again = heard_afresh(taken, asked)
    finally:
        use(None)
    assert isinstance(again, HeardGuess) and (again.card, again.action) == ("PIANO", action)


def test_at_a_question_yes_leading_every_card_is_yes() -> None:
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "yes", "no")
    logits = (-12.0, -12.0, -12.0, -12.0, -0.01, -12.0)
    closed = ClosedSet(phrases, logits, logits, (0.0, 0.0, 0.0, 0.0, 1.0, 0.0))
    taken = take_up(Heard("yeth", 0.2, closed=closed, transcript_logprob=-1.0), _asked("WALRUS"))
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.YES


def _under_the_point(phrases: tuple[str, ...], yes: str, asked: str, lang: Lang) -> ClosedSet:
    """Scores putting `yes` first at a share between a coin's toss and the calibrated point for an answer
    from the scores alone, `asked` (the card the question is about, heard before at 0.5) next, the rest
    nowhere: whatever the point the calibration chose."""
    share = (0.5 + calibration().answer_point(lang)) / 2
    assert 0.5 < share < calibration().answer_point(lang)
    logits = tuple(
        math.log(share) if p == yes else math.log(1 - share) - math.log(0.5) if p == asked else -30.0 for p in phrases
    )
    return ClosedSet(phrases, logits, logits, tuple(0.0 for _ in phrases))


@pytest.mark.parametrize(("lang", "said", "yes_word"), [(Lang.EN, "Yes.", "yes"), (Lang.PT_PT, "Sim.", "sim")])
def test_at_a_question_an_unsure_yes_the_scores_put_first_is_yes(lang: Lang, said: str, yes_word: str) -> None:
    """ "WALRUS?" - "Yes." heard unsure, the scores putting "yes" first but under the point for an answer
    from the scores alone: the words and the scores agree, so it is taken, not dropped."""
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", yes_word, "no" if lang is Lang.EN else "não")
    closed = _under_the_point(phrases, yes_word, "WALRUS", lang)
    asked = Moment(lang, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",), before=(("WALRUS", 0.5),))
    taken = take_up(Heard(said, 0.2, closed=closed, transcript_logprob=-1.0), asked)
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.YES


def test_at_a_question_words_that_say_yes_are_weighed_against_the_card_asked_about() -> None:
    """ "WALRUS?" - "sin" (MBROLA pt1's "sim"): the scores over every card put another one first (TÚNEL at
    0.44 to 0.80 beside "sim" in a real game), but the words say the answer and name no card, so they are
    weighed against the card asked about, as a plain answer is: yes."""
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "sim", "não")
    logits = (-6.0, -0.5, -9.0, -9.0, -1.5, -9.0)
    closed = ClosedSet(phrases, logits, logits, (0.0, 0.73, 0.0, 0.0, 0.27, 0.0))
    asked = Moment(Lang.PT_PT, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",), before=(("WALRUS", 0.5),))
    taken = take_up(Heard("sin", 0.1, closed=closed, transcript_logprob=-1.0), asked)
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.YES
    garbled = take_up(Heard("pianu", 0.1, closed=closed, transcript_logprob=-1.0), asked).understood
    assert not isinstance(garbled, HeardCommand), "words that do not say yes must lead every card"


def test_at_a_question_a_yes_heard_a_slip_away_the_scores_put_first_is_yes() -> None:
    """MBROLA's pt1 says "sim" and Whisper writes "sin" every time; with the scores putting "sim" first
    under the point for an answer from the scores alone, the words a slip away agree with them."""
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "sim", "não")
    closed = _under_the_point(phrases, "sim", "WALRUS", Lang.PT_PT)
    asked = Moment(Lang.PT_PT, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",), before=(("WALRUS", 0.5),))
    taken = take_up(Heard("sin", 0.1, closed=closed, transcript_logprob=-1.0), asked)
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.YES
    for said in ("sal", "sem dúvida nenhuma"):  # two slips away, or talk: the words do not say yes
        other = take_up(Heard(said, 0.1, closed=closed, transcript_logprob=-1.0), asked).understood
        assert not (isinstance(other, HeardCommand) and other.command is Command.YES), said


def test_at_a_question_a_slip_that_also_names_a_card_is_no_answer_in_words() -> None:
    """ "sin" with SINO on the table: the words may name the card as well as "sim", so they do not say
    the answer themselves, and the scores alone decide (under the point: no yes)."""
    cards = ("SINO", "PIANO", "OCEAN", "CHERRY")
    phrases = (*cards, "sim", "não")
    closed = _under_the_point(phrases, "sim", "PIANO", Lang.PT_PT)
    asked = Moment(Lang.PT_PT, Awaited.GUESS, visible=cards, asked=True, offers=("PIANO",), before=(("PIANO", 0.5),))
    taken = take_up(Heard("sin", 0.1, closed=closed, transcript_logprob=-1.0), asked).understood
    assert not (isinstance(taken, HeardCommand) and taken.command is Command.YES)


def _scored(**logits: float) -> ClosedSet:
    """The cards and answers scored at -30 unless given."""
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "yes", "no")
    values = tuple(logits.get(p, -30.0) for p in phrases)
    return ClosedSet(phrases, values, values, tuple(0.0 for _ in phrases))


def test_at_a_question_the_card_asked_about_scored_first_agrees_with_yes_in_words() -> None:
    """ "BROCCOLI?" - "correct" (Pico en-GB, transcribed right, heard unsure): the scores put BROCCOLI a
    little above "yes", and saying the card back is saying yes too: the two readings agree. Asked about two
    cards, "yes" says neither."""
    closed = _scored(WALRUS=-1.0, yes=-1.3, no=-4.0)
    asked = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",))
    taken = take_up(Heard("correct", 0.36, closed=closed, transcript_logprob=-1.0), asked)
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.YES
    two = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS", "PIANO"))
    either = take_up(Heard("correct", 0.36, closed=closed, transcript_logprob=-1.0), two).understood
    assert not isinstance(either, HeardCommand | HeardGuess)


def test_at_a_question_yes_in_words_scored_as_no_is_asked_again_never_taken_as_no() -> None:
    """MBROLA br4's "isso mesmo" (yes), transcribed right, scored "não" at 0.88: it was taken as "no"."""
    closed = _scored(WALRUS=-8.0, yes=-2.0, no=-0.1)
    taken = take_up(Heard("that's right", 0.35, closed=closed, transcript_logprob=-1.0), _asked("WALRUS")).understood
    assert not isinstance(taken, HeardCommand | HeardGuess)


@pytest.mark.parametrize("leading", ["WALRUS", "yes"])
def test_at_a_question_no_in_words_is_no_whatever_the_scores(leading: str) -> None:
    """ "Está errado." (espeak-ng pt, transcribed right): the scores weigh the one word "não" and put the
    card asked about first. "No" changes nothing (the table names its card again), so its words suffice."""
    closed = _scored(**{leading: -0.5, "no": -3.0})
    taken = take_up(Heard("Wrong.", 0.49, closed=closed, transcript_logprob=-1.0), _asked("WALRUS")).understood
    assert isinstance(taken, HeardCommand) and taken.command is Command.NO


def test_the_host_reads_no_vocabulary_file_per_utterance(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host asks its name for every moment and view (the ears ask the moment several times an
    utterance): reading pt-PT's vocabulary afresh each time cost 100 ms an utterance before the answer."""
    import importlib
    import json
    from pathlib import Path

    from engine.board import Board
    from engine.editions import new_game
    from engine.variants import Variants
    from voicehost.prompts import Prompts
    from voicehost.referee.host import Host, HostSettings

    board_file = Path(__file__).resolve().parents[1] / "boards" / "classic-pt-PT.json"
    board = Board.from_dict(json.loads(board_file.read_text(encoding="utf-8")))

    class Quiet:
        def say(self, text: str) -> None:
            """Nothing said."""

    host = Host(new_game(board, Variants()), Prompts.load(board.lang), Quiet(), settings=HostSettings())
    host.start()
    host.hear("música, dois")  # the language's files are read once, on first use
    vocabulary_files = importlib.import_module("voicehost.understanding.vocabulary")  # the module, not the function
    reads: list[str] = []
    read = vocabulary_files._read_table
    monkeypatch.setattr(vocabulary_files, "_read_table", lambda name: reads.append(name) or read(name))
    for line in ("colher", "sim", "passo", "cidade, dois"):
        host.moment()
        host.hear(line)
    assert reads == []


def _piano_scored_sure(said: str, at: Moment, unworded_act: float | None, talk_ask: float | None = None) -> TakenUp:
    """`said` taken up at `at` where the scores alone find PIANO at 0.99, under a calibration whose point for a
    card the words do not name is `unworded_act` (within 3 words), and for such a card in words that read as
    talk `talk_ask` (within 4 words)."""
    from dataclasses import replace

    from voicehost.decision import FEATURES
    from voicehost.decision.calibration import Logistic, use

    sure = Logistic(4.6, (0.0,) * len(FEATURES), act=0.9, ask=0.7)  # every card at 0.99
    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "pass")
    logits = (-9.0, -0.1, -9.0, -9.0, -9.0)
    closed = ClosedSet(phrases, logits, logits, (0.0, 1.0, 0.0, 0.0, 0.0))
    use(
        replace(
            calibration(),
            by_lang={"en": sure},
            unworded_act=unworded_act,
            unworded_words=3,
            talk_ask=talk_ask,
            talk_ask_words=4,
        )
    )
    try:
        return take_up(Heard(said, 0.2, closed=closed, transcript_logprob=-1.0), at)
    finally:
        use(None)


@pytest.mark.parametrize(
    ("said", "unworded_act", "verdict", "action"),
    [
        ("Pee ah new", None, Attention.ASK_BACK, Action.CONFIRM),  # no point chosen: always asked back
        ("Pee ah new", 0.98, Attention.TAKE, Action.ACCEPT),  # sure, and short as a card said
        ("Pee ah new", 0.999, Attention.ASK_BACK, Action.CONFIRM),  # short, but not sure enough
        ("I think its pee ah new", 0.98, Attention.ASK_BACK, Action.CONFIRM),  # 6 words: may be talk
    ],
)
def test_the_open_way_acts_on_a_card_the_words_do_not_name_only_from_its_calibrated_point(
    said: str, unworded_act: float | None, verdict: Attention, action: Action
) -> None:
    """ "piano" written "Pee ah new": the scores alone find PIANO (probability 0.99). The open way acts on it at
    once only from `unworded_act` and within `unworded_words` words (3 here); else it asks back ("PIANO?")."""
    taken = _piano_scored_sure(said, moment(True), unworded_act)
    assert isinstance(taken.understood, HeardGuess) and taken.understood.card == "PIANO"
    assert not taken.form.talk
    assert (taken.verdict, taken.understood.action) == (verdict, action)


@pytest.mark.parametrize(
    ("said", "talk_ask", "at", "verdict"),
    [
        ("Heart and chest.", None, moment(True), Attention.IGNORE),  # no point chosen: talk is let be
        ("Heart and chest.", 0.98, moment(True), Attention.ASK_BACK),  # sure enough and short: "PIANO?"
        ("Heart and chest.", 0.999, moment(True), Attention.IGNORE),  # not sure enough
        ("and generally I am the main problem.", 0.98, moment(True), Attention.IGNORE),  # 7 words: talk's length
        ("Heart and chest.", 0.98, moment(True, ListenMode.ADDRESSED), Attention.IGNORE),  # not said to the host
        ("Heart and chest.", 0.98, moment(False), Attention.IGNORE),  # a clue is awaited: no card now
    ],
)
def test_a_card_the_scores_find_in_words_that_read_as_talk_is_asked_back_from_its_own_point(
    said: str, talk_ask: float | None, at: Moment, verdict: Attention
) -> None:
    """Over the others' talk Whisper writes their words for a player's card ("Heart and chest." for
    "cottage"), and the line reads as talk; the scores still find the card. In the open way, while a team
    guesses, it is asked back ("PIANO?", never acted on) from `talk_ask` and within `talk_ask_words` words;
    otherwise, and in the addressed way, it is let be as talk."""
    taken = _piano_scored_sure(said, at, unworded_act=0.98, talk_ask=talk_ask)
    assert taken.form.talk
    assert taken.verdict is verdict
    if verdict is Attention.ASK_BACK:
        assert isinstance(taken.understood, HeardGuess) and taken.understood.card == "PIANO"
        assert taken.understood.action is Action.CONFIRM


@pytest.mark.parametrize(
    ("said", "verdict"),
    [
        ("Pee ah new", Attention.HINT),  # sure and short: the open way would act on it, so the name is asked for
        ("I think its pee ah new", Attention.IGNORE),  # the open way would ask it back: likely talk, left alone
    ],
)
def test_the_addressed_way_hints_only_at_a_card_the_open_way_would_act_on(said: str, verdict: Attention) -> None:
    """Without the host's name, a sure move gets the hint ("say «host» first"); a card only the scores found in
    garbled words that the open way would ask back is far more often talk, and gets silence (pt-PT talk over
    babble, "eu ia dizer o cometa mas" heard "e a desemproposidade nas", got the hint)."""
    taken = _piano_scored_sure(said, moment(True, ListenMode.ADDRESSED), unworded_act=0.98)
    assert isinstance(taken.understood, HeardGuess) and taken.understood.card == "PIANO"
    assert taken.verdict is verdict


@pytest.mark.parametrize(
    ("text", "guessing", "listening", "verdict"),
    [
        ("Garten Nein", False, ListenMode.OPEN, Attention.SORRY),  # "garden, nine" heard: a clue half heard
        ("favor salmon", False, ListenMode.OPEN, Attention.SORRY),  # "paper, seven"
        ("Garten Nein", False, ListenMode.ADDRESSED, Attention.IGNORE),  # said to nobody by name
        ("Garten Nein", True, ListenMode.OPEN, Attention.IGNORE),  # while guessing, the cards' scores decide
        ("we should have gone with the other one I think", False, ListenMode.OPEN, Attention.IGNORE),  # talk
        ("hmm okay", False, ListenMode.OPEN, Attention.IGNORE),  # no word that could name anything
        ("I'm sorry.", False, ListenMode.OPEN, Attention.IGNORE),  # one word: a scrap of the room's talk
    ],
)
def test_a_short_line_heard_while_a_clue_is_awaited_is_answered_not_met_with_silence(
    text: str, guessing: bool, listening: ListenMode, verdict: Attention
) -> None:
    """The ears' short line of real words that reads as no move while a clue is awaited is the clue half
    heard far more often than talk (held-out lines: 22 of 30 clues met with silence in a quiet room, 3 of
    224 lines of talk): "Sorry?". While a team guesses, only the cards' scores make such a line a move."""
    assert take_up(Heard(text, 0.3), moment(guessing, listening)).verdict is verdict


@pytest.mark.parametrize(("answer", "taken"), [("yes", False), ("no", True)])
def test_at_a_question_a_yes_the_words_do_not_say_needs_the_point_of_yes(answer: str, taken: bool) -> None:
    """ "WALRUS?" - "So long." (a "no" in a talking room, heard as something else): the scores put `answer`
    first at 0.7, above the answers' point (0.6) and under the point of "yes" (0.8, chosen on the false
    yeses alone). A "no" is taken (it costs a repeat at worst); a "yes" is not (it would reveal WALRUS)."""
    from dataclasses import replace

    from voicehost.decision.calibration import use

    phrases = ("WALRUS", "PIANO", "OCEAN", "CHERRY", "yes", "no")
    logits = tuple(math.log(0.7) if p == answer else math.log(0.3) if p == "WALRUS" else -30.0 for p in phrases)
    closed = ClosedSet(phrases, logits, logits, tuple(0.0 for _ in phrases))
    moment = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=("WALRUS",))
    use(replace(calibration(), answer_by_lang={"en": 0.6}, yes_by_lang={"en": 0.8}))
    try:
        understood = take_up(Heard("So long.", 0.2, closed=closed, transcript_logprob=-1.0), moment).understood
    finally:
        use(None)
    expected = Command.YES if answer == "yes" else Command.NO
    assert (isinstance(understood, HeardCommand) and understood.command is expected) is taken
