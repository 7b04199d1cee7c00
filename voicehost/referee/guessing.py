"""A card named: revealed, asked back ("CEREJA or CEBOLA?"), or answered with a reason (a covered card, a
clue awaited, a card to cover that must be chosen in private)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import Phase, Player
from voicehost.referee.effects import Ask, Effect, Play, Say
from voicehost.referee.questions import AskGuesser, ConfirmGuess
from voicehost.referee.view import View
from voicehost.understanding import Action, HeardGuess


def take_guess(view: View, heard: HeardGuess, covered: str | None, alternatives: Sequence[str] = ()) -> list[Effect]:
    """Act on a card heard; `covered` the covered card the words name, if any; `alternatives` the
    recognizer's runners-up worth offering, best first."""
    game = view.game
    phase = game.state.phase
    if phase is Phase.SIMULATED_TURN or (phase is Phase.CLUE and game.cover_choices()):
        # A card to cover is chosen in private: whatever card is named aloud, the same reply, so the
        # table never learns from it whose agent that card is.
        return [Say(view.announce.cover_not_aloud(), remember=False)]
    if phase is Phase.CLUE:
        return [Say(view.announce.need_clue_first(), remember=False)]
    if heard.place and not covered and heard.card not in game.visible_cards():
        covered = heard.card
    if covered is not None:
        return [Say(view.t("guess.covered_already", card=covered), remember=False)]
    if heard.action is Action.ACCEPT:
        return reveal(view, heard.card)
    if heard.action is Action.CONFIRM and heard.candidates:
        candidates = [candidate.card for candidate in heard.candidates]
        offered = [card for card in alternatives if card in game.visible_cards()]
        if heard.card in offered and len(offered) > 1:  # the recognizer knows the runners-up better
            candidates = offered[:3]
        belief = tuple((c.card, c.score / 100.0) for c in heard.candidates if c.card in candidates)
        return [Ask(ConfirmGuess(candidates=tuple(candidates), shares=belief, place=heard.place))]
    return [Say(view.t("input.reprompt_guess"), remember=False)]


def reveal(view: View, card: str) -> list[Effect]:
    """Turn the card over for whoever guesses now; in Duet sudden death, ask who when both may."""
    guessers = view.game.guessers()
    guesser: Player | None = None
    if len(guessers) > 1:
        if view.chosen_side not in guessers:
            return [Ask(AskGuesser(card=card))]
        guesser = view.chosen_side
    return [Play(lambda game: game.guess(card, by=guesser))]
