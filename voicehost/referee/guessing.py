"""A card named: revealed, asked back ("CEREJA or CEBOLA?"), or refused with a reason (a covered card,
a clue awaited, a card to cover that must be chosen in private)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.editions import AnyGame
from engine.game import Phase, Player
from voicehost.referee.questions import AskGuesser, ConfirmGuess
from voicehost.referee.table import Table
from voicehost.understanding import Action, Grid, HeardGuess, understand
from voicehost.understanding import Phase as Hearing


def take_guess(host: Table, heard: HeardGuess, alternatives: Sequence[str]) -> None:
    """Act on a card heard; `alternatives` are the recognizer's runners-up worth offering, best first."""
    game = host.game
    phase = game.state.phase
    accepted = heard.action is Action.ACCEPT
    if phase is Phase.SIMULATED_TURN or (phase is Phase.CLUE and game.cover_choices()):
        # A card to cover is chosen in private: whatever card is named aloud, the same reply, so the
        # table never learns from it whose agent that card is.
        host.say(host.announce.cover_not_aloud(), remember=False)
        return
    if phase is Phase.CLUE:
        host.say(host.announce.need_clue_first(), remember=False)
        return
    covered = covered_card_named(game, host.grid, heard.heard)
    if heard.place and not covered and heard.card not in game.visible_cards():
        covered = heard.card
    if covered is not None:
        host.say(host.t("guess.covered_already", card=covered), remember=False)
        return
    if accepted:
        reveal(host, heard.card)
    elif heard.action is Action.CONFIRM and heard.candidates:
        candidates = [candidate.card for candidate in heard.candidates]
        offered = [card for card in alternatives if card in game.visible_cards()]
        if heard.card in offered and len(offered) > 1:  # the recognizer knows the runners-up better
            candidates = offered[:3]
        belief = {c.card: c.score / 100.0 for c in heard.candidates if c.card in candidates}
        host.ask(ConfirmGuess(candidates=candidates, belief=belief, place=heard.place))
    else:
        host.say(host.t("input.reprompt_guess"), remember=False)


def covered_card_named(game: AnyGame, grid: Grid, text: str) -> str | None:
    """A covered card, when that is what was said: matching only the visible cards would
    offer another card instead (even the assassin)."""
    covered = [card for index, card in enumerate(game.board.cards) if game.is_covered(index)]
    if not covered:
        return None
    everything = understand(text, phase=Hearing.GUESS, cards=game.board.cards, lang=game.board.lang, grid=grid)
    if isinstance(everything, HeardGuess) and everything.card in covered and everything.action is Action.ACCEPT:
        return everything.card
    return None


def reveal(host: Table, card: str) -> None:
    """Turn the card over for whoever guesses now; in Duet sudden death, ask who when both may."""
    guessers = host.game.guessers()
    if len(guessers) > 1:
        if host.chosen_side not in guessers:
            host.ask(AskGuesser(card=card))
            return
        guesser: Player | None = host.chosen_side
    else:
        guesser = None
    host.chosen_side = None
    host.done(host.game.guess(card, by=guesser))
