"""The Korean vosk corpus: the only vosk model a package registry ships is Korean, so the vosk path is
measured (and tested, tests/voice/test_vosk_engine.py) on espeak-ng's Korean voice saying the nouns of a small
grammar, and words outside it, with other common nouns as the grammar's fillers.

Kept apart from bench/corpus.py, whose utterances are game moves in pt, it and en on real boards: Korean
has no deck, no board and no `Lang`; its context is English's, as the vosk tests have it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from bench.corpus import HISS, POST_S, PRE_ROLL_S, boards, seed_of
from bench.noise import Condition, apply
from bench.voices import TestVoice, synthesize
from engine.board import Board
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.understanding.moment import Awaited, Moment

__all__ = [
    "KOREAN_FILLERS",
    "KOREAN_MEANINGS",
    "KOREAN_NOUNS",
    "KOREAN_OOV",
    "KOREAN_VOICE",
    "KoreanBoard",
    "KoreanWord",
    "board",
    "korean_audio",
    "korean_corpus",
    "korean_moment",
    "korean_speech",
]

KOREAN_VOICE: Final = TestVoice("espeak:ko", "ko", "espeak", "ko")
"""espeak-ng's Korean at its default speed (175 words per minute), as tests/voice/test_vosk_engine.py speaks."""

KOREAN_NOUNS: Final = ("고양이", "자동차", "병원", "지하철", "피아노", "운동장", "코끼리", "도서관")
"""The grammar of tests/voice/test_vosk_engine.py: cat, car, hospital, subway, piano, playground, elephant, library."""
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
filler model of the Korean grammar (`Moment.fillers`), as the decks are for pt, it and en, and nearly
as many as go into theirs (`vosk_engine.MAX_FILLERS`, 400). Written by topic, then left out: 8 the
model does not know, and 병, 코, 이 and 피, part of a card. None is, contains or is contained in a card
of KOREAN_NOUNS or a word of KOREAN_OOV: those have to be rejected because the fillers compete with
the cards, not because they are fillers themselves (tests/voice/test_vosk_engine.py checks it)."""


@dataclass(frozen=True)
class KoreanWord:
    """One Korean word said to the vosk grammar: a card of it, or a word outside it (oov)."""

    kind: str  # "card" or "oov"
    text: str

    @property
    def card(self) -> str | None:
        return self.text if self.kind == "card" else None

    @property
    def uid(self) -> str:
        return f"{KOREAN_VOICE.id}|{self.kind}|{self.text}"


SINO_KOREAN: Final = {1: "일", 2: "이", 3: "삼", 4: "사", 5: "오"}
KOREAN_PLACES: Final = {
    f"{SINO_KOREAN[row]} {SINO_KOREAN[column]}": (row, column) for row in range(1, 6) for column in range(1, 6)
}
"""A place said as its row's and its column's numbers ("이 삼": row 2, column 3), as the stand-in for
the place phrases a vosk model of the game's language holds (the project has no Korean game: the Korean
model is the only vosk model here). espeak-ng's Korean voice is heard right in 13 of the 25 (the other
Korean phrasings tried did worse: tests/voice/test_unheard.py)."""


def korean_corpus(*, quick: bool = False) -> list[KoreanWord]:
    """The grammar's nouns and the words outside it; `quick`: two nouns and one word outside."""
    nouns = KOREAN_NOUNS[:2] if quick else KOREAN_NOUNS
    oov = KOREAN_OOV[:1] if quick else KOREAN_OOV
    return [KoreanWord("card", noun) for noun in nouns] + [KoreanWord("oov", word) for word in oov]


def korean_moment(cards: Sequence[str] = KOREAN_NOUNS) -> Moment:
    """The Korean nouns while guessing, with KOREAN_FILLERS as the grammar's filler model (an English
    moment: the model is Korean, the host's languages are not)."""
    return Moment(Lang.EN, Awaited.GUESS, visible=tuple(cards), spoken_fillers=KOREAN_FILLERS)


class KoreanBoard:
    """What the host's decision needs of a board (`lang`, `cards`), for the Korean nouns."""

    lang: Final = Lang.EN
    cards: Final = KOREAN_NOUNS


def board(lang: Lang) -> Board:
    """The classic board of a language (bench.corpus `boards(lang)["test"]`), where the vosk tests play."""
    return boards(lang)["test"]


def korean_speech(word: KoreanWord, cache_dir: Path) -> Audio:
    """The word as espeak-ng's Korean says it, trimmed (cached by bench/voices.py)."""
    return synthesize(KOREAN_VOICE, word.text, cache_dir=cache_dir)


def korean_audio(word: KoreanWord, condition: Condition, cache_dir: Path) -> Audio:
    """The word as the recognizer gets it, built as `bench.corpus.audio_of` builds a clip: the detector's
    pre-roll and closing silence around it, a faint hiss, the condition over it all. Babble has no
    Korean sentences (bench/noise.py): clean, white or pink only."""
    speech = korean_speech(word, cache_dir)
    rng = np.random.default_rng(seed_of(word.uid, "hiss"))
    head, tail = round(PRE_ROLL_S * SAMPLE_RATE), round(POST_S * SAMPLE_RATE)
    clip = np.concatenate([np.zeros(head, np.float32), speech, np.zeros(tail, np.float32)])
    clip = (clip + rng.standard_normal(len(clip)) * HISS).astype(np.float32)
    heard = apply(condition, clip, seed=seed_of(word.uid, condition.name), lang="ko", cache_dir=cache_dir)
    return np.clip(heard, -1.0, 1.0).astype(np.float32)
