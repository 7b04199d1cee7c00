"""Once a game is over (`voicehost.decision.endings`): "new game" or "quit" garbled by the ears is taken
when its phrase explains the audio nearly as well as the free transcript, and only then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.calibrate_moves import ENDING_ASK_RATE, MIN_SAMPLES, EndingSample, ending_ask_point
from engine.lang import Lang
from voicehost.decision import calibration, decide
from voicehost.decision.calibration import use
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import Action, Command, HeardCommand
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading

OVER = Moment(Lang.PT_BR, Awaited.OVER)


def heard(text: str, best: str, gap: float) -> Heard:
    """What the ears give once the game is over: `best` the phrase scored first, `gap` nats below the transcript."""
    logprobs = (-10.0 - gap, -30.0)
    other = "nova partida" if best != "nova partida" else "sair"
    commands = ClosedSet((best, other), logprobs, logprobs, (1.0, 1.0))
    return Heard(text, 0.3, transcript_logprob=-10.0, commands=commands)


def understood(said: Heard, gap: float | None) -> object:
    model = replace(calibration(), ending_gap=gap)
    return decide(said, Reading(said.text, OVER, said.confidence), model)


def test_a_garbled_quit_near_the_transcript_is_quit() -> None:
    said = understood(heard("Sai no dujogo. Sai", "sair do jogo", 1.0), gap=2.0)
    assert isinstance(said, HeardCommand) and said.command is Command.QUIT


def test_a_garbled_new_game_is_a_new_game() -> None:
    said = understood(heard("9 parcida", "nova partida", 0.5), gap=2.0)
    assert isinstance(said, HeardCommand) and said.command is Command.NEW_GAME


def test_a_phrase_further_from_the_transcript_than_the_point_is_not_taken() -> None:
    said = understood(heard("Sai no dujogo. Sai", "sair do jogo", 3.0), gap=2.0)
    assert not isinstance(said, HeardCommand)


@pytest.mark.parametrize(
    "text", ["foi uma partida muito boa, parabéns a todos", "eu ainda não acredito que nós perdemos essa"]
)
def test_a_long_line_after_a_game_is_talk_whatever_the_scores(text: str) -> None:
    said = understood(heard(text, "sair", 0.0), gap=2.0)
    assert not isinstance(said, HeardCommand)


def test_said_plainly_it_is_taken_whatever_the_scores() -> None:
    said = understood(heard("sair do jogo", "nova partida", 9.0), gap=0.0)
    assert isinstance(said, HeardCommand) and said.command is Command.QUIT


def test_without_a_calibrated_point_only_the_words_count() -> None:
    said = understood(heard("Sai no dujogo. Sai", "sair do jogo", -5.0), gap=None)
    assert not (isinstance(said, HeardCommand) and said.action is Action.ACCEPT)  # asked back at most
    said = understood(heard("sair do jogo", "sair do jogo", 0.0), gap=None)
    assert isinstance(said, HeardCommand) and said.command is Command.QUIT


def taken(said: Heard, ask: float | None) -> tuple[Attention, object]:
    """What the host does with the line once the game is over, endings taken from their words only."""
    use(replace(calibration(), ending_gap=None, ending_ask=ask))
    try:
        up = take_up(said, OVER)
        return up.verdict, up.understood
    finally:
        use(None)


@pytest.mark.parametrize(("gap", "verdict"), [(0.8, Attention.TAKE), (1.5, Attention.IGNORE)])
def test_a_quit_garbled_past_taking_is_asked_back_within_the_ask_point(gap: float, verdict: Attention) -> None:
    # "sair do jogo" heard "Saindo de jogas." in babble: "Como?" then four more garbles before; now "Sair do jogo?"
    attention, understood = taken(heard("Saindo de jogas.", "sair do jogo", gap), ask=1.0)
    assert attention is verdict
    if verdict is Attention.TAKE:  # taken up as a question, never acted on
        assert isinstance(understood, HeardCommand) and understood.command is Command.QUIT
        assert understood.action is Action.CONFIRM


def test_a_new_game_garbled_past_taking_is_asked_back_as_a_new_game() -> None:
    attention, understood = taken(heard("Nó apertado.", "nova partida", 0.8), ask=1.0)
    assert attention is Attention.TAKE
    assert isinstance(understood, HeardCommand) and understood.command is Command.NEW_GAME
    assert understood.action is Action.CONFIRM


def test_without_an_ask_point_or_in_a_long_line_there_is_no_answer() -> None:
    assert taken(heard("Sai na tua jogo.", "sair do jogo", 0.5), ask=None)[0] is Attention.IGNORE
    talk = heard("foi uma partida muito boa, parabéns a todos", "sair", 0.0)
    assert taken(talk, ask=1.0)[0] is Attention.IGNORE


def sample(meant: str | None, gap: float | None) -> EndingSample:
    return EndingSample("u", "clean", gap, meant, None)


def test_the_ending_ask_point_keeps_the_other_lines_under_their_rate() -> None:
    endings = [sample("quit", 0.1 * i) for i in range(MIN_SAMPLES)]
    others = [sample(None, 1.0 + 0.01 * i) for i in range(100)] + [sample("pass", None)] * 100
    point = ending_ask_point(endings + others, shipped=None)
    assert point is not None
    within = sum(s.gap is not None and s.gap <= point for s in others)
    assert within <= ENDING_ASK_RATE * len(others) < within + 1
    assert ending_ask_point(endings[:3] + others, shipped=0.7) == 0.7  # too few endings said to choose
