"""The dev corpus: what players say to the host, spoken by voices as close to people as these machines have.

Voices (`bench/voices.py`): RHVoice, SVOX Pico and MBROLA, with espeak-ng's own formant voices as the
hard tail. They are split in two: the decision is calibrated on the TUNING voices, and the tables
report the HELD-OUT ones, never tuned on (`VOICE_ROLES`). Per voice: every card of three boards of the
language (the test board and two dealt from the deck), alone and after one of the lead-ins people use;
clues with every number 0-9 and unlimited; commands; yes and no after a question; table talk that is no
move (tests/data/table_talk). Around each utterance what the host's voice activity detector keeps:
its pre-roll and its closing silence. Conditions (`bench/noise.py`): clean, or white, pink or babble
noise (several other voices at once) at an SNR, with or without a room's reverb. Everything is seeded:
the same utterance in the same condition is the same audio on every run.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np

from bench import ROOT
from bench.noise import Condition, apply
from bench.voices import ESPEAK_WPM, VOICES, TestVoice, available, synthesize
from engine.board import Board, deal_competitive
from engine.decks import words
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.understanding import Command

__all__ = ["KINDS", "Condition", "Utterance", "audio_of", "boards", "corpus", "default_cache", "voices_of"]

KINDS: Final = ("card", "lead-in", "clue", "command", "yes/no", "talk")
PRE_ROLL_S: Final = 0.16
POST_S: Final = 0.096
"""Around each utterance, what the host's voice activity detector hands the recognizer: its pre-roll, and
the start of the closing silence (voicehost.ears.vad PAUSE_MS: the audio heard while the silence goes on)."""
HISS: Final = 0.001
"""A room's faint hiss (about -60 dBFS) under everything, rather than digital zeros no microphone delivers."""
DEALT_SEEDS: Final = (101, 202)

VOICE_ROLES: Final[dict[str, str]] = {
    # tuning: at least one person-like voice and one espeak-ng voice per language where there are two
    "rhvoice:slt": "tune",
    "pico:en-US": "tune",
    "mbrola:mb-us1": "tune",
    "espeak:en-us": "tune",
    "mbrola:mb-br1": "tune",
    "espeak:pt-br": "tune",
    "espeak:pt": "tune",
    "mbrola:mb-it3": "tune",
    "espeak:it": "tune",
    # held out: every other voice, never seen by the calibration
    "rhvoice:bdl": "held-out",
    "rhvoice:clb": "held-out",
    "rhvoice:alan": "held-out",
    "pico:en-GB": "held-out",
    "mbrola:mb-us2": "held-out",
    "mbrola:mb-en1": "held-out",
    "espeak:en-us+f3": "held-out",
    "rhvoice:Leticia-F123": "held-out",
    "mbrola:mb-br4": "held-out",
    "espeak:pt-br+f3": "held-out",
    "mbrola:mb-pt1": "held-out",
    "espeak:pt+f3": "held-out",
    "pico:it-IT": "held-out",
    "espeak:it+m3": "held-out",
}
"""pt-PT has only MBROLA's pt1 and espeak-ng: the best voice (pt1) is held out, and its tuning voice is
espeak-ng's pt. RHVoice's Russian-accented English voices are left out of both: accents are not the
question here, and the corpus stays an hour."""

LEAD_INS: Final[dict[str, tuple[str, ...]]] = {
    "pt": ("eu acho que é {article} {card}", "é {article} {card}", "vamos de {card}", "a resposta é {card}"),
    "it": ("scelgo {card}", "direi {card}", "è {card}", "io dico {card}"),
    "en": ("I think it's the {card}", "it's the {card}", "let's go with {card}", "my guess is {card}"),
}
CLUE_WORDS: Final[dict[Lang, tuple[str, ...]]] = {
    # words on no board of the corpus, that a person may say as a clue
    Lang.PT_BR: ("música", "metal", "cidade", "janela"),
    Lang.PT_PT: ("música", "papel", "cidade", "janela"),
    Lang.IT: ("musica", "città", "giardino", "finestra"),
    Lang.EN: ("music", "paper", "garden", "summer"),
}
NUMBERS: Final[dict[str, tuple[str, ...]]] = {
    "pt": ("zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove"),
    "it": ("zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"),
    "en": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
}
UNLIMITED: Final = {"pt": "ilimitado", "it": "senza limiti", "en": "unlimited"}
COMMANDS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.PASS, "passo"), (Command.PASS, "passo a vez"), (Command.REPEAT, "repete"),
                 (Command.SCORE, "qual é o placar"), (Command.READ_BOARD, "lê o tabuleiro")),
    Lang.PT_PT: ((Command.PASS, "passo"), (Command.PASS, "passamos a vez"), (Command.REPEAT, "repete"),
                 (Command.SCORE, "qual é a pontuação"), (Command.READ_BOARD, "lê o tabuleiro")),
    Lang.IT: ((Command.PASS, "passo"), (Command.PASS, "passo il turno"), (Command.REPEAT, "ripeti"),
              (Command.SCORE, "qual è il punteggio"), (Command.READ_BOARD, "leggi il tabellone")),
    Lang.EN: ((Command.PASS, "pass"), (Command.PASS, "we're done"), (Command.REPEAT, "repeat"),
              (Command.SCORE, "what's the score"), (Command.READ_BOARD, "read the board")),
}  # fmt: skip
ANSWERS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.YES, "sim"), (Command.YES, "isso mesmo"), (Command.NO, "não"), (Command.NO, "errado")),
    Lang.PT_PT: ((Command.YES, "sim"), (Command.YES, "está certo"), (Command.NO, "não"), (Command.NO, "está errado")),
    Lang.IT: ((Command.YES, "sì"), (Command.YES, "esatto"), (Command.NO, "no"), (Command.NO, "sbagliato")),
    Lang.EN: ((Command.YES, "yes"), (Command.YES, "correct"), (Command.NO, "no"), (Command.NO, "nope")),
}
ENDINGS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.NEW_GAME, "nova partida"), (Command.NEW_GAME, "jogar de novo"), (Command.QUIT, "sair"),
                 (Command.QUIT, "sair do jogo"), (Command.QUIT, "tchau")),
    Lang.PT_PT: ((Command.NEW_GAME, "nova partida"), (Command.NEW_GAME, "jogar outra vez"), (Command.QUIT, "sair"),
                 (Command.QUIT, "sair do jogo"), (Command.QUIT, "adeus")),
    Lang.IT: ((Command.NEW_GAME, "nuova partita"), (Command.NEW_GAME, "giochiamo ancora"), (Command.QUIT, "esci"),
              (Command.QUIT, "esci dal gioco"), (Command.QUIT, "arrivederci")),
    Lang.EN: ((Command.NEW_GAME, "new game"), (Command.NEW_GAME, "play again"), (Command.QUIT, "quit"),
              (Command.QUIT, "goodbye"), (Command.QUIT, "exit the game")),
}  # fmt: skip
"""What a table says once a game is over (`ending_corpus`; kept out of `corpus`, whose kinds the recognition
bench reports)."""
UNDOS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.UNDO, "desfaz"), (Command.UNDO, "desfazer"), (Command.UNDO, "volta atrás")),
    Lang.PT_PT: ((Command.UNDO, "desfaz"), (Command.UNDO, "desfaz lá"), (Command.UNDO, "volta atrás")),
    Lang.IT: ((Command.UNDO, "annulla"), (Command.UNDO, "annulla l'ultima"), (Command.UNDO, "torna indietro")),
    Lang.EN: ((Command.UNDO, "undo"), (Command.UNDO, "undo that"), (Command.UNDO, "take that back")),
}
"""What a table says to take back a move nobody meant (`undo_corpus`), at COMMAND_TEMPI too: a wrong reveal often
ends the turn, and the undo then comes while the next clue is awaited."""
TALK_PER_VOICE: Final = 16
"""Lines of table talk each voice says (of the 62 per language in tests/data/table_talk)."""
QUICK: Final = {"card": 3, "lead-in": 2, "clue": 2, "command": 1, "yes/no": 1, "talk": 2}


@dataclass(frozen=True)
class Utterance:
    """One thing a player says, and what it means: a card, a clue, a command, or (talk) nothing."""

    lang: Lang
    voice: TestVoice
    kind: str
    text: str
    board: str  # which of `boards(lang)` is on the table
    phase: str = "guess"  # what the host waits for: "guess" or "clue"
    card: str | None = None
    clue: tuple[str, int | None] | None = None
    command: Command | None = None

    @property
    def uid(self) -> str:
        return f"{self.voice.id}|{self.kind}|{self.board}|{self.text}"

    @property
    def role(self) -> str:
        return VOICE_ROLES.get(self.voice.id, "held-out")


@cache
def boards(lang: Lang) -> dict[str, Board]:
    """The test board of the language and two boards dealt from its deck with fixed seeds."""
    found = {"test": Board.from_dict(_read_json(ROOT / "tests" / "boards" / f"classic-{lang.value}.json"))}
    for seed in DEALT_SEEDS:
        found[f"dealt-{seed}"] = deal_competitive(list(words(lang)), lang, random.Random(seed))
    return found


def _read_json(path: Path) -> dict[str, object]:
    import json

    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def voices_of(lang: Lang, role: str | None = None) -> list[TestVoice]:
    """The installed voices of a language, of one role (tune, held-out) or all that have one."""
    found = [voice for voice in VOICES[lang.value] if voice.id in VOICE_ROLES and available(voice)]
    return [voice for voice in found if role is None or VOICE_ROLES[voice.id] == role]


def _article(card: str, family: str) -> str:
    if family != "pt":
        return ""
    return "a" if card.lower().rstrip("s").endswith(("a", "ção", "gem", "dade")) else "o"


@cache
def _talk(lang: Lang) -> tuple[str, ...]:
    path = ROOT / "tests" / "data" / "table_talk" / f"{lang.value}.txt"
    return tuple(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def corpus(lang: Lang, voices: Sequence[TestVoice], *, quick: bool = False) -> list[Utterance]:
    """Everything `voices` say in `lang` (see the module docstring); `quick`: a few of each kind."""
    family = lang.family
    said: list[Utterance] = []
    for number, voice in enumerate(voices):
        batch: list[Utterance] = []
        for name, board in boards(lang).items():
            for index, card in enumerate(board.cards):
                batch.append(Utterance(lang, voice, "card", card.lower(), name, card=card))
                lead = LEAD_INS[family][(index + number) % len(LEAD_INS[family])]
                text = lead.format(card=card.lower(), article=_article(card, family)).replace("  ", " ")
                batch.append(Utterance(lang, voice, "lead-in", text, name, card=card))
        for index, spoken in enumerate((*NUMBERS[family], UNLIMITED[family])):
            word = CLUE_WORDS[lang][(index + number) % len(CLUE_WORDS[lang])]
            value = index if index < len(NUMBERS[family]) else None
            batch.append(Utterance(lang, voice, "clue", f"{word}, {spoken}", "test", "clue", clue=(word, value)))
        for command, text in COMMANDS[lang]:
            batch.append(Utterance(lang, voice, "command", text, "test", command=command))
        for command, text in ANSWERS[lang]:
            batch.append(Utterance(lang, voice, "yes/no", text, "test", command=command))
        talk = _talk(lang)
        for index in range(TALK_PER_VOICE):
            batch.append(Utterance(lang, voice, "talk", talk[(index + number * TALK_PER_VOICE) % len(talk)], "test"))
        said += _few(batch) if quick else batch
    return said


def ending_corpus(lang: Lang, voices: Sequence[TestVoice]) -> list[Utterance]:
    """ "New game" and "quit" as `voices` say them once a game is over (kind "ending")."""
    return [
        Utterance(lang, voice, "ending", text, "test", command=command)
        for voice in voices
        for command, text in ENDINGS[lang]
    ]


MORE_ANSWERS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.YES, "sim"), (Command.YES, "sim sim"), (Command.NO, "não"), (Command.NO, "não não")),
    Lang.PT_PT: ((Command.YES, "sim"), (Command.YES, "sim sim"), (Command.NO, "não"), (Command.NO, "não não")),
    Lang.IT: ((Command.YES, "sì"), (Command.YES, "sì sì"), (Command.NO, "no"), (Command.NO, "no no")),
    Lang.EN: ((Command.YES, "yes"), (Command.YES, "yes yes"), (Command.NO, "no"), (Command.NO, "no no")),
}
"""The answers a question gets most, said again at other speeds for the answers' operating point
(`answer_corpus`): the corpus's four answers a voice give too few garbled ones to choose a point on."""
ANSWER_TEMPI: Final = (0.7, 0.8, 0.9, 1.1, 1.25, 1.4)
"""The speeds, as factors of each voice's own, the answers are said at besides its own (in `corpus`): six, so
that the answers heard only by the scores number some hundreds and one wrong answer cannot set the point
alone (at two speeds, 95 were scored first, and one Italian "no" heard "Sino" lifted the point to 0.86)."""
COMMAND_TEMPI: Final = (0.8, 1.25)
"""The speeds the commands are said at besides each voice's own (in `corpus`)."""


def undo_corpus(lang: Lang, voices: Sequence[TestVoice]) -> list[Utterance]:
    """ "Undo" as `voices` say it at their own speed and at COMMAND_TEMPI (kind "undo")."""
    return _paced(lang, voices, "undo", UNDOS[lang], (1.0, *COMMAND_TEMPI))


def answer_corpus(lang: Lang, voices: Sequence[TestVoice]) -> list[Utterance]:
    """ "Yes" and "no" as `voices` say them slower and faster (kind "yes/no", each speed a voice of its own
    id, "rhvoice:slt@80"); kept out of `corpus`, whose kinds the recognition bench reports."""
    return _paced(lang, voices, "yes/no", MORE_ANSWERS[lang], ANSWER_TEMPI)


MORE_COMMANDS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.PASS, "passo"), (Command.PASS, "a gente passa"), (Command.REPEAT, "repete"),
                 (Command.SCORE, "placar"), (Command.READ_BOARD, "lê o tabuleiro")),
    Lang.PT_PT: ((Command.PASS, "passo"), (Command.PASS, "passamos"), (Command.REPEAT, "repete"),
                 (Command.SCORE, "pontuação"), (Command.READ_BOARD, "lê o tabuleiro")),
    Lang.IT: ((Command.PASS, "passo"), (Command.PASS, "passiamo"), (Command.REPEAT, "ripeti"),
              (Command.SCORE, "punteggio"), (Command.READ_BOARD, "leggi il tabellone")),
    Lang.EN: ((Command.PASS, "pass"), (Command.PASS, "we pass"), (Command.REPEAT, "repeat"),
              (Command.SCORE, "score"), (Command.READ_BOARD, "read the board")),
}  # fmt: skip
"""The commands a turn hears most, said again at other speeds for the commands' operating points
(`command_corpus`): "pass" heard only by the scores ("Tâso", "bus") is too rare in the corpus's two passes a
voice to choose a point for acting on it at once."""


def command_corpus(lang: Lang, voices: Sequence[TestVoice]) -> list[Utterance]:
    """The commands of MORE_COMMANDS as `voices` say them slower and faster (kind "command", each speed a
    voice of its own id), as `answer_corpus` does for the answers."""
    return _paced(lang, voices, "command", MORE_COMMANDS[lang], COMMAND_TEMPI)


def _paced(
    lang: Lang, voices: Sequence[TestVoice], kind: str, said: Sequence[tuple[Command, str]], tempi: Sequence[float]
) -> list[Utterance]:
    """Each of `said` by each voice at every speed of `tempi` (factors of the voice's own)."""
    found = []
    for voice in voices:
        own = voice.speed or (100 if voice.engine in ("rhvoice", "pico") else ESPEAK_WPM)
        for tempo in tempi:
            speed = round(own * tempo)
            paced = replace(voice, id=f"{voice.id}@{speed}", speed=speed)
            found += [Utterance(lang, paced, kind, text, "test", command=command) for command, text in said]
    return found


def _few(batch: Sequence[Utterance]) -> list[Utterance]:
    kept: list[Utterance] = []
    for kind, cap in QUICK.items():
        of_kind = [utterance for utterance in batch if utterance.kind == kind]
        kept += of_kind[:: max(1, len(of_kind) // cap)][:cap]
    return kept


def default_cache() -> Path:
    import tempfile

    return Path(tempfile.gettempdir()) / "voicehost-bench" / "speech"


def seed_of(*parts: object) -> int:
    return zlib.crc32("\0".join(str(part) for part in parts).encode())


def audio_of(utterance: Utterance, condition: Condition, cache_dir: Path) -> Audio:
    """The utterance as the recognizer gets it from the voice activity detector, in this condition: the
    speech between its pre-roll and closing silence, a faint hiss under it all, the condition's room
    and noise over the whole clip."""
    speech = synthesize(utterance.voice, utterance.text, cache_dir=cache_dir)
    rng = np.random.default_rng(seed_of(utterance.uid, "hiss"))
    head, tail = round(PRE_ROLL_S * SAMPLE_RATE), round(POST_S * SAMPLE_RATE)
    clip = np.concatenate([np.zeros(head, np.float32), speech, np.zeros(tail, np.float32)])
    clip = (clip + rng.standard_normal(len(clip)) * HISS).astype(np.float32)
    heard = apply(
        condition, clip, seed=seed_of(utterance.uid, condition.name), lang=utterance.lang.value, cache_dir=cache_dir
    )
    return np.clip(heard, -1.0, 1.0).astype(np.float32)
