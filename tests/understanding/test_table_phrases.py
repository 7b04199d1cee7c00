"""The ways people at a table say "pass", "repeat", "undo", "whose turn is it", a side of a Duet key, and a
clue taken back, in the four languages: each is understood as meant when typed (the voice path hears the
same vocabulary, `voicehost/vocab/*.toml`)."""

from __future__ import annotations

import pytest

from engine.lang import Lang
from engine.pieces import Side
from tests.understood import clue_of, command_of
from voicehost.understanding import Command, Phase, SpokenClue, side_named, understand
from voicehost.understanding.clues import correction_in

BOARD: dict[Lang, list[str]] = {
    Lang.EN: ["DRAGON", "PIANO", "KNIGHT", "WAGON", "NOTE"],
    Lang.PT_BR: ["CEREJA", "PIANO", "TOURO", "LASANHA", "SINO"],
    Lang.PT_PT: ["CEREJA", "PIANO", "TOURO", "LASANHA", "SINO"],
    Lang.IT: ["NUVOLA", "PIANOFORTE", "TORO", "LASAGNA", "CAMPANA"],
}

COMMANDS: list[tuple[Lang, str, Command]] = [
    # pass
    (Lang.EN, "Pass.", Command.PASS),
    (Lang.EN, "we pass", Command.PASS),
    (Lang.EN, "pass turn", Command.PASS),
    (Lang.PT_BR, "Passo.", Command.PASS),
    (Lang.PT_BR, "passamos a vez", Command.PASS),
    (Lang.PT_PT, "passo", Command.PASS),
    (Lang.PT_PT, "ficamos por aqui", Command.PASS),
    (Lang.IT, "Passo.", Command.PASS),
    (Lang.IT, "passiamo", Command.PASS),
    # repeat
    (Lang.EN, "Can you repeat that?", Command.REPEAT),
    (Lang.EN, "could you repeat that please", Command.REPEAT),
    (Lang.EN, "what did you say?", Command.REPEAT),
    (Lang.PT_BR, "Repete.", Command.REPEAT),
    (Lang.PT_BR, "Pode repetir?", Command.REPEAT),
    (Lang.PT_BR, "o que você disse?", Command.REPEAT),
    (Lang.PT_PT, "Repete.", Command.REPEAT),
    (Lang.PT_PT, "Pode repetir?", Command.REPEAT),
    (Lang.PT_PT, "podes repetir isso?", Command.REPEAT),
    (Lang.IT, "Ripeti per favore.", Command.REPEAT),
    (Lang.IT, "puoi ripetere?", Command.REPEAT),
    (Lang.IT, "me lo ripeti?", Command.REPEAT),
    # undo
    (Lang.EN, "undo that", Command.UNDO),
    (Lang.EN, "Take that back.", Command.UNDO),
    (Lang.EN, "undo the last guess", Command.UNDO),
    (Lang.PT_BR, "desfaz", Command.UNDO),
    (Lang.PT_BR, "desfazer a última", Command.UNDO),
    (Lang.PT_BR, "cancela isso", Command.UNDO),
    (Lang.PT_PT, "desfaz", Command.UNDO),
    (Lang.PT_PT, "anula isso", Command.UNDO),
    (Lang.IT, "annulla", Command.UNDO),
    (Lang.IT, "annulla l'ultimo tentativo", Command.UNDO),
    (Lang.IT, "annullalo", Command.UNDO),
    # whose turn is it
    (Lang.EN, "Whose turn is it?", Command.WHOSE_TURN),
    (Lang.EN, "who's turn is it", Command.WHOSE_TURN),
    (Lang.EN, "who's next?", Command.WHOSE_TURN),
    (Lang.PT_BR, "De quem é a vez?", Command.WHOSE_TURN),
    (Lang.PT_BR, "é a vez de quem?", Command.WHOSE_TURN),
    (Lang.PT_BR, "quem joga agora?", Command.WHOSE_TURN),
    (Lang.PT_PT, "De quem é a vez?", Command.WHOSE_TURN),
    (Lang.PT_PT, "quem é que está a jogar?", Command.WHOSE_TURN),
    (Lang.PT_PT, "a quem calha jogar?", Command.WHOSE_TURN),
    (Lang.IT, "A chi tocca?", Command.WHOSE_TURN),
    (Lang.IT, "di chi è il turno?", Command.WHOSE_TURN),
    (Lang.IT, "chi gioca adesso?", Command.WHOSE_TURN),
    # the sand timer, as the help names it ("ampulheta" and "clessidra" alone are cards of the decks)
    (Lang.EN, "timer", Command.TIMER_FLIP),
    (Lang.PT_BR, "virar a ampulheta", Command.TIMER_FLIP),
    (Lang.PT_PT, "vira a ampulheta", Command.TIMER_FLIP),
    (Lang.IT, "gira la clessidra", Command.TIMER_FLIP),
]


@pytest.mark.parametrize(("lang", "said", "command"), COMMANDS)
@pytest.mark.parametrize("phase", list(Phase))
def test_what_the_table_says_for_a_command(lang: Lang, said: str, command: Command, phase: Phase) -> None:
    heard = understand(said, phase=phase, cards=BOARD[lang], lang=lang)
    assert command_of(heard) is command, heard


CORRECTIONS: list[tuple[Lang, str, str, int]] = [
    # A spymaster taking the clue back, with its number: the new clue is what follows the correction.
    (Lang.EN, "no, fruit, two", "fruit", 2),
    (Lang.EN, "I mean fruit, two", "fruit", 2),
    (Lang.EN, "no, I mean fruit, 2", "fruit", 2),
    (Lang.EN, "correction: fruit, two", "fruit", 2),
    (Lang.PT_BR, "não, a pista é fruta, dois", "fruta", 2),
    (Lang.PT_BR, "quer dizer, fruta, dois", "fruta", 2),
    (Lang.PT_BR, "aliás, fruta, dois", "fruta", 2),
    (Lang.PT_PT, "não, a pista é fruta, duas", "fruta", 2),
    (Lang.PT_PT, "aliás, fruta, dois", "fruta", 2),
    (Lang.IT, "no, frutta, due", "frutta", 2),
    (Lang.IT, "anzi, frutta, due", "frutta", 2),
    (Lang.IT, "volevo dire frutta, due", "frutta", 2),
    (Lang.IT, "no, l'indizio è frutta, due", "frutta", 2),
]


@pytest.mark.parametrize(("lang", "said", "word", "number"), CORRECTIONS)
@pytest.mark.parametrize("phase", list(Phase))
def test_a_clue_taken_back_is_the_clue_after_the_correction(
    lang: Lang, said: str, word: str, number: int, phase: Phase
) -> None:
    heard = understand(said, phase=phase, cards=BOARD[lang], lang=lang)
    assert clue_of(heard) == SpokenClue(word, number, False), heard


SIDES: list[tuple[Lang, str, Side]] = [
    (Lang.EN, "A", Side.A),
    (Lang.EN, "player A", Side.A),
    (Lang.EN, "B.", Side.B),
    (Lang.EN, "this is B", Side.B),
    (Lang.PT_BR, "A", Side.A),
    (Lang.PT_BR, "jogador A", Side.A),
    (Lang.PT_BR, "jogadora B", Side.B),
    (Lang.PT_BR, "aqui é o B", Side.B),
    (Lang.PT_PT, "jogador A", Side.A),
    (Lang.PT_PT, "sou eu, o B", Side.B),
    (Lang.IT, "A", Side.A),
    (Lang.IT, "giocatore A", Side.A),
    (Lang.IT, "giocatrice B", Side.B),
]


@pytest.mark.parametrize(("lang", "said", "side"), SIDES)
def test_a_duet_player_names_their_side(lang: Lang, said: str, side: Side) -> None:
    assert side_named(said, lang) is side


BARE_CORRECTIONS: list[tuple[Lang, str, str]] = [
    (Lang.EN, "no, fruit", "fruit"),
    (Lang.EN, "I mean fruit", "fruit"),
    (Lang.EN, "no, I mean fruit", "fruit"),
    (Lang.PT_BR, "não, a pista é fruta", "fruta"),
    (Lang.PT_BR, "quer dizer, fruta", "fruta"),
    (Lang.PT_PT, "não, a pista é fruta", "fruta"),
    (Lang.PT_PT, "aliás, fruta", "fruta"),
    (Lang.IT, "no, frutta", "frutta"),
    (Lang.IT, "anzi, frutta", "frutta"),
    (Lang.IT, "no, l'indizio è frutta", "frutta"),
]


@pytest.mark.parametrize(("lang", "said", "word"), BARE_CORRECTIONS)
def test_a_correction_without_its_number_names_the_word(lang: Lang, said: str, word: str) -> None:
    """ "no, fruit" right after a clue: a correction (a no-word or "I mean" first), its word what the
    lead-ins leave, the number the clue had."""
    corrected = correction_in(said, lang)
    assert corrected is not None and (corrected.word, corrected.has_number) == (word, False), corrected
