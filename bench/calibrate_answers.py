"""Answers heard as a table hears them: the tuning voices play whole games in a talking room, and every line
the host hears while a yes-or-no question waits is kept for the answers' points (`calibrate_moves`).

Said alone, the tuning voices' answers never turn "não" into "sim", and the answers' point was chosen on
them. At the bench's babble table a "yes" the words do not say was a "não" or a move for one in four such
yeses (pt-PT, three games: "Simarca" 0.63, "Vamos lá." 0.59 for "não"; "É isso." 0.70 for "janela, dois"):
the room's talk runs on around a line, the segmenter cuts it with some of the room's words, and a move
said while the question waits is heard as its answer. These games give the answers that room makes, each
with what the player answered: "yes" or "no", or nothing (a card, for "CEREJA ou CEBOLA?"). A move said
while a question waits is left out: whether "yes" was its truth depends on what was asked ("passo" over
"Disseste «passo»?" is one). Each line is weighed as the isolated answers are
(`calibrate_moves.command_sample`). The games are seeded and played with no answer taken from the scores
alone (`_asking`), so the same code hears the same lines whatever answer points are shipped; they are
stored by the calibration's code version and this code's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Final

from bench.calibrate_moves import MoveSample, command_sample
from bench.corpus import voices_of
from bench.noise import Condition
from bench.players import PLANNED_TURNS, Table
from bench.recognition import progress
from bench.table import Cell, play_local
from engine.lang import Lang
from voicehost.audio.samples import Audio
from voicehost.decision.calibration import Calibration, calibration, use
from voicehost.ears.heard import Heard, MomentSource
from voicehost.ears.streams import Ears, Unfinished, Whole
from voicehost.referee.host import Host
from voicehost.understanding import Command, vocabulary

ROOM_GAMES: Final = 16
"""Games a language plays in each talking room: several hundred lines heard while a question waits. Fewer
leave the point to chance: pt's worst false "yes" was 0.57 in four games, 0.63 in eight, 0.87 in sixteen."""


class _AnswersHeard:
    """The host's ears, keeping each line heard while a yes-or-no question waits with what was said."""

    def __init__(self, inner: Ears, host: Host, table: Table, found: list[MoveSample], key: str, room: str) -> None:
        self._inner, self._host, self._table, self._found = inner, host, table, found
        self._key, self._room = key, room

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]:
        for heard in self._inner.utterances(chunks, moment, unfinished, whole):
            now = self._host.moment()
            if now.answering and self._table.saying is not None and self._table.saying[1]:
                text = self._table.saying[0]
                meant = _answer_said(text, now.lang)
                uid = f"{self._key}|{len(self._found)}|{text}"
                self._found.append(command_sample(heard, now, Command.YES, meant, uid, self._room))
            yield heard


def _asking(model: Calibration) -> Calibration:
    """The calibration the games are played with: as shipped, but no answer is taken from the scores alone
    (only from its words), so the games do not depend on the answers' points they are played to choose: a
    refit after `--write` plays the same games and finds the same points."""
    return replace(model, answer_share=1.0, answer_by_lang={}, yes_by_lang={})


def _answer_said(text: str, lang: Lang) -> Command | None:
    """ "yes" or "no" when a player's answer was one of them ("sim", "não"), else None."""
    command = vocabulary(lang).scored_command(text.strip().lower())
    return command if command in (Command.YES, Command.NO) else None


def collect_room_answers(
    recognizer: Any,
    langs: Sequence[Lang],
    conditions: Sequence[Condition],
    cache: Path,
    store: Path,
    games: int = ROOM_GAMES,
) -> list[MoveSample]:
    """The lines heard while a question waited in `games` Classic games a language and condition, the tuning
    voices at the table (espeak-ng's among them); read from `store` when this code has heard them."""
    known: dict[str, list[dict[str, Any]]] = {}
    if store.exists():
        known = json.loads(store.read_text(encoding="utf-8"))
    for lang in langs:
        voices = voices_of(lang, "tune")
        for condition in conditions:
            for game in range(games):
                key = f"{lang.value}|{condition.name}|{game}"
                if key in known:
                    continue
                progress(f"calibrate: {lang.value} answers at a table, {condition.name}, game {game + 1} of {games}")
                found: list[MoveSample] = []
                cell = Cell(lang, "classic", "open", condition)

                def listened(
                    ears: Ears,
                    host: Host,
                    table: Table,
                    found: list[MoveSample] = found,
                    key: str = key,
                    room: str = condition.name,
                ) -> Ears:
                    return _AnswersHeard(ears, host, table, found, key, room)

                use(_asking(calibration()))
                try:
                    play_local(
                        recognizer,
                        cell,
                        game=game,
                        cache_dir=cache,
                        planned_turns=PLANNED_TURNS,
                        voices=voices,
                        listened=listened,
                    )
                finally:
                    use(None)
                known[key] = [asdict(sample) for sample in found]
                store.parent.mkdir(parents=True, exist_ok=True)
                store.write_text(json.dumps(known), encoding="utf-8")
    wanted = {f"{lang.value}|{c.name}|{g}" for lang in langs for c in conditions for g in range(games)}
    return [MoveSample(**row) for key, rows in known.items() if key in wanted for row in rows]
