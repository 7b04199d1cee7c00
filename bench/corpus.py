"""The dev corpus: what synthetic players say to the host, spoken by espeak-ng and cached on disk.

Each sentence is synthesized once per voice into a cache folder (keyed by espeak-ng's version, the
voice, the speed and the text), so reruns read the same audio. Noise is white, at a signal-to-noise
ratio measured on the speech, from a generator seeded by the utterance and the condition: the same
utterance in the same condition is the same audio on every run.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np

from bench import ROOT
from engine.board import Board
from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.wav import read_wav
from voicehost.understanding import Command

VOICES: Final[dict[Lang, tuple[str, ...]]] = {
    Lang.PT_BR: ("pt-br", "pt-br+f3"),
    Lang.PT_PT: ("pt",),
    Lang.IT: ("it", "it+m3"),
    Lang.EN: ("en-us", "en-us+f3"),
}
SPEED_WPM: Final = 150
"""As the simulated table of tests/table.py speaks."""
KINDS: Final = ("card", "lead-in", "clue", "command", "yes/no", "oov")
"""A card alone, a card inside a lead-in phrase, a clue, a command, yes or no, speech outside the game."""

LEAD_INS: Final = {"pt": "eu acho que é {article} {card}", "it": "scelgo {card}", "en": "I think it's the {card}"}
CLUES: Final[dict[Lang, tuple[tuple[str, int, str], ...]]] = {
    # (word, number, as said): words that are on no board of the language
    Lang.PT_BR: (("música", 2, "música, dois"), ("metal", 3, "metal, três"), ("cidade", 1, "cidade, um"),
                 ("janela", 4, "janela, quatro")),
    Lang.PT_PT: (("música", 2, "música, dois"), ("papel", 3, "papel, três"), ("cidade", 1, "cidade, um"),
                 ("janela", 4, "janela, quatro")),
    Lang.IT: (("musica", 2, "musica, due"), ("città", 3, "città, tre"), ("giardino", 1, "giardino, uno"),
              ("finestra", 4, "finestra, quattro")),
    Lang.EN: (("music", 2, "music, two"), ("paper", 3, "paper, three"), ("garden", 1, "garden, one"),
              ("summer", 4, "summer, four")),
}  # fmt: skip
COMMANDS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    # phrases taken from voicehost/vocab/<lang>.toml (pt-PT inherits pt-BR's)
    Lang.PT_BR: ((Command.PASS, "passo"), (Command.PASS, "passo a vez"), (Command.REPEAT, "repete"),
                 (Command.REPEAT, "de novo"), (Command.SCORE, "placar"), (Command.SCORE, "qual é o placar")),
    Lang.PT_PT: ((Command.PASS, "passo"), (Command.PASS, "passamos a vez"), (Command.REPEAT, "repete"),
                 (Command.REPEAT, "diz outra vez"), (Command.SCORE, "resultado"),
                 (Command.SCORE, "qual é a pontuação")),
    Lang.IT: ((Command.PASS, "passo"), (Command.PASS, "passo il turno"), (Command.REPEAT, "ripeti"),
              (Command.REPEAT, "puoi ripetere"), (Command.SCORE, "punteggio"),
              (Command.SCORE, "qual è il punteggio")),
    Lang.EN: ((Command.PASS, "pass"), (Command.PASS, "we're done"), (Command.REPEAT, "repeat"),
              (Command.REPEAT, "say that again"), (Command.SCORE, "score"), (Command.SCORE, "what's the score")),
}  # fmt: skip
ANSWERS: Final[dict[Lang, tuple[tuple[Command, str], ...]]] = {
    Lang.PT_BR: ((Command.YES, "sim"), (Command.YES, "isso mesmo"), (Command.NO, "não"), (Command.NO, "errado")),
    Lang.PT_PT: ((Command.YES, "sim"), (Command.YES, "está certo"), (Command.NO, "não"), (Command.NO, "está errado")),
    Lang.IT: ((Command.YES, "sì"), (Command.YES, "esatto"), (Command.NO, "no"), (Command.NO, "sbagliato")),
    Lang.EN: ((Command.YES, "yes"), (Command.YES, "correct"), (Command.NO, "no"), (Command.NO, "nope")),
}
OUT_OF_VOCABULARY: Final[dict[Lang, tuple[str, ...]]] = {
    Lang.PT_BR: ("hoje o tempo está bonito", "onde deixei minhas chaves", "preciso comprar pão",
                 "meu irmão mora em Recife", "o ônibus atrasou de novo"),
    Lang.PT_PT: ("hoje está um dia bonito", "onde é que deixei as chaves", "preciso de comprar pão",
                 "o meu irmão vive no Porto", "o comboio atrasou outra vez"),
    Lang.IT: ("oggi il tempo è bello", "dove ho lasciato le chiavi", "devo comprare il pane",
              "mio fratello abita a Torino", "il treno è di nuovo in ritardo"),
    Lang.EN: ("the weather is nice today", "where did I leave my keys", "I need to buy some bread",
              "my brother lives in Chicago", "the train was late again"),
}  # fmt: skip
QUICK_KINDS: Final = {"card": 2, "lead-in": 1, "clue": 1, "command": 1, "yes/no": 1, "oov": 1}
"""How many of each kind --quick keeps (first voice only)."""

KOREAN_VOICE: Final = "ko"
KOREAN_SPEED_WPM: Final = 175  # espeak-ng's default, as tests/test_vosk_engine.py speaks
KOREAN_NOUNS: Final = ("고양이", "자동차", "병원", "지하철", "피아노", "운동장", "코끼리", "도서관")
"""The grammar of tests/test_vosk_engine.py: cat, car, hospital, subway, piano, playground, elephant, library."""
KOREAN_MEANINGS: Final = ("CAT", "CAR", "HOSPITAL", "SUBWAY", "PIANO", "PLAYGROUND", "ELEPHANT", "LIBRARY")
KOREAN_OOV: Final = (
    "사과", "커피", "안녕하세요", "학교", "컴퓨터", "우체국", "할머니", "선생님", "바나나", "감사합니다",
)  # fmt: skip
"""Words outside that grammar (apple, coffee, hello, school...), also from the vosk tests."""
KOREAN_FILLERS: Final = (
    "강아지", "토끼", "호랑이", "사자", "원숭이", "곰", "여우", "늑대", "돼지", "소", "말", "닭", "오리", "거북이",
    "개구리", "나비", "벌", "개미", "모기", "거미", "뱀", "상어", "고래", "돌고래", "문어", "오징어", "새우", "게",
    "물고기", "참새", "비둘기", "독수리", "까마귀", "부엉이", "펭귄", "기린", "하마", "낙타", "얼룩말", "다람쥐",
    "사슴", "염소", "쥐", "박쥐", "공룡", "악어", "앵무새", "밥", "빵", "국수", "라면", "김치", "떡", "고기", "생선",
    "계란", "달걀", "우유", "주스", "물", "술", "맥주", "소주", "녹차", "케이크", "사탕", "초콜릿", "아이스크림",
    "피자", "햄버거", "치킨", "샌드위치", "샐러드", "수박", "딸기", "포도", "귤", "오렌지", "레몬", "복숭아", "참외",
    "토마토", "감자", "고구마", "양파", "마늘", "당근", "배추", "버섯", "콩", "쌀", "소금", "설탕", "간장", "된장",
    "고추", "치즈", "버터", "꿀", "집", "방", "부엌", "화장실", "거실", "창문", "문", "지붕", "계단", "마당", "정원",
    "공원", "시장", "가게", "식당", "호텔", "공항", "항구", "역", "은행", "경찰서", "교회", "성당", "절", "극장",
    "영화관", "박물관", "미술관", "백화점", "편의점", "약국", "시청", "공장", "농장", "사무실", "회사", "대학",
    "교실", "놀이터", "수영장", "경기장", "다리", "골목", "광장", "섬", "마을", "도시", "시골", "나라", "바다", "산",
    "강", "호수", "하늘", "구름", "비", "눈", "바람", "태양", "해", "달", "별", "나무", "꽃", "풀", "숲", "돌",
    "모래", "흙", "불", "얼음", "무지개", "번개", "천둥", "안개", "사막", "폭포", "동굴", "언덕", "들판", "책",
    "연필", "볼펜", "공책", "종이", "가방", "지갑", "열쇠", "시계", "안경", "모자", "신발", "양말", "옷", "바지",
    "치마", "셔츠", "장갑", "우산", "거울", "빗", "칫솔", "수건", "비누", "책상", "침대", "소파", "냉장고", "세탁기",
    "텔레비전", "라디오", "전화", "핸드폰", "카메라", "사진", "그림", "편지", "선물", "상자", "컵", "접시", "숟가락",
    "젓가락", "포크", "칼", "냄비", "주전자", "테이프", "망치", "못", "사다리", "양초", "전구", "램프", "기차",
    "비행기", "배", "버스", "택시", "트럭", "자전거", "오토바이", "헬리콥터", "로켓", "보트", "아빠", "엄마",
    "아버지", "어머니", "할아버지", "형", "누나", "언니", "오빠", "동생", "아들", "딸", "아기", "친구", "남자",
    "여자", "아이", "학생", "간호사", "경찰", "소방관", "군인", "요리사", "가수", "배우", "화가", "작가", "농부",
    "어부", "기자", "변호사", "판사", "왕", "여왕", "공주", "왕자", "머리", "얼굴", "입", "귀", "목", "어깨", "팔",
    "손", "손가락", "발", "무릎", "등", "가슴", "심장", "뼈", "머리카락", "아침", "점심", "저녁", "밤", "낮", "오늘",
    "내일", "어제", "주말", "봄", "여름", "겨울", "시간", "축구", "야구", "농구", "배구", "테니스", "골프", "수영",
    "스키", "음악", "노래", "춤", "영화", "게임", "돈", "카드", "표", "지도", "여권", "우표", "신문", "잡지", "사랑",
    "꿈", "행복", "평화", "전쟁", "역사", "과학", "수학", "영어", "한국어", "기타", "바이올린", "드럼", "북", "나팔",
    "트럼펫", "달력", "생일", "파티", "결혼", "여행", "휴가", "숙제", "시험",
)  # fmt: skip
"""Other common Korean nouns the model knows (animals, food, places, things, people, time...): the
filler model of the Korean grammar (`Context.fillers`), as the decks are for pt, it and en, and nearly
as many as go into theirs (`vosk_engine.MAX_FILLERS`, 400). Written by topic, then left out: 8 the
model does not know, and 병, 코, 이 and 피, part of a card. None is, contains or is contained in a card
of KOREAN_NOUNS or a word of KOREAN_OOV: those have to be rejected because the fillers compete with
the cards, not because they are fillers themselves (tests/test_vosk_engine.py checks it)."""

PRE_ROLL_S: Final = 0.16
POST_S: Final = 0.32
"""Around each utterance, what the host's voice activity detector keeps: its pre-roll and closing silence."""
HISS: Final = 0.001
"""A room's faint hiss (about -60 dBFS) under everything, rather than digital zeros no microphone delivers."""


@dataclass(frozen=True)
class Utterance:
    """One thing a player says, and what it means."""

    lang: Lang | None  # None: Korean, for the vosk model (its Context uses English, as the vosk tests do)
    voice: str
    kind: str
    text: str
    phase: str = "guess"  # "guess" or "clue": what the host listens for when it is said
    card: str | None = None  # the card meant, as printed on the board
    clue: tuple[str, int] | None = None
    command: Command | None = None

    @property
    def uid(self) -> str:
        return f"{self.lang or 'ko'}/{self.voice}/{self.kind}/{self.text}"

    @property
    def speed(self) -> int:
        return KOREAN_SPEED_WPM if self.voice == KOREAN_VOICE else SPEED_WPM


@dataclass(frozen=True)
class Condition:
    """Clean, or white noise at an SNR in dB."""

    snr_db: float | None

    @property
    def name(self) -> str:
        return "clean" if self.snr_db is None else f"{self.snr_db:g} dB SNR"

    @classmethod
    def parse(cls, text: str) -> Condition:
        word = text.strip().lower().removesuffix("db").strip()
        if word == "clean":
            return cls(None)
        try:
            return cls(float(word))
        except ValueError:
            raise ValueError(f"unknown condition {text!r}: say clean, or an SNR in dB like 10") from None


@cache
def board(lang: Lang) -> Board:
    path = ROOT / "tests" / "boards" / f"classic-{lang.value}.json"
    return Board.from_dict(json.loads(path.read_text(encoding="utf-8")))


def _article(card: str) -> str:
    """Portuguese "o" or "a" before a card, by its ending; the host drops it either way."""
    word = card.lower()
    return "a" if word.endswith(("a", "ção", "são", "agem")) else "o"


def corpus(lang: Lang, *, quick: bool = False) -> list[Utterance]:
    """Every card alone and after a lead-in, clues, commands, yes/no and out-of-vocabulary speech, per voice."""
    voices = VOICES[lang][:1] if quick else VOICES[lang]
    lead_in = LEAD_INS[lang.family]
    said: list[Utterance] = []
    for voice in voices:
        batch: list[Utterance] = []
        for card in board(lang).cards:
            batch.append(Utterance(lang, voice, "card", card.lower(), card=card))
        for card in board(lang).cards:
            text = lead_in.format(card=card.lower(), article=_article(card))
            batch.append(Utterance(lang, voice, "lead-in", text, card=card))
        for word, number, text in CLUES[lang]:
            batch.append(Utterance(lang, voice, "clue", text, phase="clue", clue=(word, number)))
        for command, text in COMMANDS[lang]:
            batch.append(Utterance(lang, voice, "command", text, command=command))
        for command, text in ANSWERS[lang]:
            batch.append(Utterance(lang, voice, "yes/no", text, command=command))
        for text in OUT_OF_VOCABULARY[lang]:
            batch.append(Utterance(lang, voice, "oov", text))
        said += _spread(batch, QUICK_KINDS) if quick else batch
    return said


def korean_corpus(*, quick: bool = False) -> list[Utterance]:
    nouns = KOREAN_NOUNS[:2] if quick else KOREAN_NOUNS
    oov = KOREAN_OOV[:1] if quick else KOREAN_OOV
    return [Utterance(None, KOREAN_VOICE, "card", noun, card=noun) for noun in nouns] + [
        Utterance(None, KOREAN_VOICE, "oov", word) for word in oov
    ]


def _spread(batch: Sequence[Utterance], caps: dict[str, int]) -> list[Utterance]:
    """The first few of each kind, the cards taken across the board rather than from its first row."""
    kept: list[Utterance] = []
    for kind, cap in caps.items():
        of_kind = [utterance for utterance in batch if utterance.kind == kind]
        step = max(1, len(of_kind) // cap) if kind in ("card", "lead-in") else 1
        offset = 1 if kind == "lead-in" else 0  # other cards than those said alone
        kept += of_kind[offset::step][:cap]
    return kept


# ---- speech ---------------------------------------------------------------------------------------


def default_cache() -> Path:
    return Path(tempfile.gettempdir()) / "voicehost-bench" / "speech"


@cache
def espeak_version() -> str:
    try:
        done = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise RuntimeError(f"espeak-ng is needed to synthesize the corpus: apt-get install espeak-ng ({exc})") from None
    return done.stdout.strip()


class Speech:
    """espeak-ng's speech for (voice, speed, text), synthesized once into `folder` and trimmed when read."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self._trimmed: dict[Path, Audio] = {}

    def path(self, utterance: Utterance) -> Path:
        key = "\0".join((espeak_version(), utterance.voice, str(utterance.speed), utterance.text))
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.wav"

    def ensure(self, utterances: Iterable[Utterance]) -> int:
        """Synthesize what the cache lacks, a few espeak-ng processes at a time; how many were made."""
        missing = {self.path(u): u for u in utterances if not self.path(u).exists()}
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            list(pool.map(lambda item: _synthesize(*item), missing.items()))
        return len(missing)

    def speech(self, utterance: Utterance) -> Audio:
        """The utterance's speech alone, 16 kHz, espeak-ng's own leading and trailing silence cut off."""
        path = self.path(utterance)
        if path not in self._trimmed:
            if not path.exists():
                _synthesize(path, utterance)
            self._trimmed[path] = _trim(read_wav(path))
        return self._trimmed[path]

    def clip(self, utterance: Utterance, condition: Condition) -> Audio:
        """The utterance as the recognizer gets it from the voice activity detector, in this condition."""
        return with_noise(self.speech(utterance), utterance.uid, condition, before=PRE_ROLL_S, after=POST_S)


def _synthesize(path: Path, utterance: Utterance) -> None:
    temporary = path.with_suffix(f".{os.getpid()}.{zlib.crc32(utterance.uid.encode())}.tmp")
    subprocess.run(
        ["espeak-ng", "-v", utterance.voice, "-s", str(utterance.speed), "-w", str(temporary), utterance.text],
        check=True,
        capture_output=True,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
    )
    os.replace(temporary, path)


def _trim(audio: Audio) -> Audio:
    loud = np.flatnonzero(np.abs(audio) > 0.01 * float(np.abs(audio).max() or 1.0))
    if len(loud) == 0:
        return audio.astype(np.float32)
    return audio[loud[0] : loud[-1] + 1].astype(np.float32)


def seed_of(*parts: object) -> int:
    return zlib.crc32("\0".join(str(part) for part in parts).encode())


def with_noise(speech: Audio, uid: str, condition: Condition, *, before: float, after: float) -> Audio:
    """`speech` between `before` and `after` seconds of quiet, hiss under it all, and white noise at the
    condition's SNR (relative to the speech's power) over the whole clip. Seeded: the same every run."""
    rng = np.random.default_rng(seed_of(uid, condition.name, before, after))
    head, tail = round(before * SAMPLE_RATE), round(after * SAMPLE_RATE)
    audio = np.concatenate([np.zeros(head), speech, np.zeros(tail)])
    audio = audio + rng.standard_normal(len(audio)) * HISS
    if condition.snr_db is not None:
        power = float(np.mean(speech.astype(np.float64) ** 2)) or 1e-8
        audio = audio + rng.standard_normal(len(audio)) * np.sqrt(power / 10 ** (condition.snr_db / 10))
    return np.clip(audio, -1.0, 1.0).astype(np.float32)
