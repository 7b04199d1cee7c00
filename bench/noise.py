"""Table noise for the benchmark, deterministic: white, pink, babble (other players talking), room reverb.

Everything random draws from a numpy Generator the caller seeds (no global random state), and babble
speaks through bench/voices.py's on-disk cache: the same (condition, speech, seed) is the same audio, bit
for bit, on every run on a machine with the same voices installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from bench.voices import SAMPLE_RATE, VOICES, Audio, available, synthesize, synthesize_many

NOISE_RMS: Final = 0.1
"""The level white, pink and babble come out at (-20 dBFS); mix_at_snr sets the one heard."""
ACTIVE_DB: Final = -40.0
"""A 10 ms frame of speech this far below its loudest is a pause, left out of the speech's power."""
KINDS: Final = ("clean", "white", "pink", "babble")
Floats = npt.NDArray[np.float64]

_SAID: Final = {
    "pt-BR": """
ontem choveu a tarde inteira; você viu onde eu deixei o carregador; a reunião foi adiada para quinta;
minha tia fez um bolo de fubá; o trânsito estava horrível hoje cedo; vamos pedir comida mais tarde;
ele mudou de emprego no mês passado; não sei se vou conseguir ir amanhã; a loja fecha mais cedo hoje;
esqueci de ligar para o meu pai; o vizinho está fazendo uma obra; acho que vai esfriar à noite;
ela começou a fazer aula de dança; o filme de ontem foi bem longo; preciso lavar a roupa no domingo;
a rua estava lotada ontem; a gente podia viajar em julho; minha bateria está quase acabando;
comprei uma blusa nova na semana passada; a conta de luz veio mais alta; ele sempre chega atrasado;
o café daqui é muito bom; a festa vai ser no sábado; estou com um pouco de sono; o vizinho faz barulho demais;
ela trabalha perto do centro; vou dormir cedo hoje; a água estava gelada ontem;
o campeonato terminou ontem; quero aprender a nadar melhor
""",
    "pt-PT": """
ontem choveu a tarde toda; viste onde deixei o carregador; a reunião foi adiada para quinta-feira;
a minha tia fez um bolo enorme; o trânsito estava péssimo esta manhã; vamos encomendar o jantar;
ele mudou de emprego no mês passado; não sei se consigo ir amanhã; a loja fecha mais cedo hoje;
esqueci-me de ligar ao meu pai; o vizinho anda a fazer obras; acho que vai arrefecer à noite;
ela começou a ter aulas de dança; o filme de ontem foi muito longo; tenho de lavar a roupa no domingo;
a rua estava cheia de gente; podíamos ir de férias em julho; a bateria está quase a acabar;
comprei umas sapatilhas novas; a conta da luz veio mais cara; ele chega sempre atrasado; o café aqui é muito bom;
a festa é no sábado à noite; estou com um bocado de sono; o cão do vizinho ladra imenso;
ela trabalha perto da baixa; hoje vou deitar-me cedo; a água do mar estava fria; o campeonato acabou ontem;
quero aprender a nadar melhor
""",
    "it": """
ieri ha piovuto tutto il pomeriggio; hai visto dove ho lasciato il caricatore; la riunione è rinviata a giovedì;
mia zia ha fatto una torta di mele; stamattina c'era un traffico terribile; ordiniamo la cena più tardi;
ha cambiato lavoro il mese scorso; non so se riesco a venire domani; oggi chiude tutto presto;
mi sono dimenticato di chiamare mio padre; il vicino sta facendo dei lavori; stasera farà più freddo;
ha cominciato un corso di ballo; il film di ieri era lunghissimo; domenica devo fare il bucato;
la strada era piena di gente; potremmo andare in vacanza a luglio; sono quasi senza carica;
ho comprato delle scarpe nuove; la bolletta della luce è aumentata; arriva sempre in ritardo;
qui si mangia molto bene; la festa è sabato sera; ho un po' di sonno; il cane del vicino abbaia sempre;
lavora vicino al centro; stasera vado a letto presto; l'acqua del mare era fredda; il campionato è finito ieri;
vorrei imparare a nuotare meglio
""",
    "en": """
it rained all afternoon yesterday; have you seen where I left the charger; the meeting moved to Thursday;
my aunt baked an apple cake; the traffic was awful this morning; we could order dinner later;
he changed jobs last month; I'm not sure I can come tomorrow; the shop closes early today; I forgot to call my dad;
the neighbours are doing some building work; it will get colder tonight; she started taking dance lessons;
that film last night was really long; I have to do laundry on Sunday; the bus went past full again;
we might go away in July; my phone is almost out of battery; I bought new shoes last week;
the electricity bill went up; he always turns up late; the coffee here is really good;
the party is on Saturday night; I'm a little sleepy; the neighbour's dog barks all day;
she works near the city centre; I'm going to bed early tonight; the sea was cold this year;
the match ended very late; I want to learn to swim better
""",
}
SENTENCES: Final = {lang: tuple(s.strip() for s in text.split(";")) for lang, text in _SAID.items()}
"""Neutral small talk, on no board and no command of the host: what the rest of the table says."""


def _unit(noise: Floats | Audio, level: float = NOISE_RMS) -> Audio:
    rms = float(np.sqrt(np.mean(np.square(noise, dtype=np.float64)))) if len(noise) else 0.0
    return (noise * (level / rms if rms > 0 else 0.0)).astype(np.float32)


def white(n: int, rng: np.random.Generator) -> Audio:
    """`n` samples of white Gaussian noise at NOISE_RMS."""
    return _unit(rng.standard_normal(n))


def pink(n: int, rng: np.random.Generator) -> Audio:
    """`n` samples of pink (1/f power) noise at NOISE_RMS: white noise shaped in the frequency domain,
    every bin above 0 Hz scaled by 1/sqrt(f), the DC bin dropped."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    frequencies = np.arange(len(spectrum), dtype=np.float64)
    spectrum[1:] /= np.sqrt(frequencies[1:])
    spectrum[0] = 0.0
    return _unit(np.fft.irfft(spectrum, n=n))


def babble(n: int, lang: str, rng: np.random.Generator, *, talkers: int = 4, cache_dir: Path) -> Audio:
    """`n` samples of `talkers` other players talking at once, at NOISE_RMS: each a different voice of
    `lang` (voices repeat only if fewer are installed) saying SENTENCES back to back with short pauses,
    from a random start, at a random level within 6 dB of the others."""
    voices = [voice for voice in VOICES.get(lang, ()) if available(voice)]
    if lang not in SENTENCES or not voices:
        raise ValueError(f"no babble in {lang!r}: sentences for {tuple(SENTENCES)}, voices installed: {len(voices)}")
    sentences = SENTENCES[lang]
    chosen = [voices[i % len(voices)] for i in rng.permutation(max(talkers, len(voices)))[:talkers]]
    orders = [rng.permutation(len(sentences)) for _ in chosen]
    # A second of speech a sentence at least: synthesize that many at once, in parallel, into the cache.
    first = n // SAMPLE_RATE + 2
    synthesize_many(((voice, sentences[i]) for voice, order in zip(chosen, orders, strict=True) for i in order[:first]),
                    cache_dir=cache_dir)  # fmt: skip
    total = np.zeros(n, dtype=np.float64)
    for voice, order in zip(chosen, orders, strict=True):
        stream: list[Floats | Audio] = [np.zeros(int(rng.integers(0, SAMPLE_RATE)))]
        length, turn = len(stream[0]), 0
        while length < n:
            said = synthesize(voice, sentences[order[turn % len(order)]], cache_dir=cache_dir)
            pause = np.zeros(int(rng.integers(SAMPLE_RATE // 10, SAMPLE_RATE // 2)))
            stream += [said, pause]
            length, turn = length + len(said) + len(pause), turn + 1
        level = float(10 ** (rng.uniform(-6.0, 0.0) / 20))
        total += np.concatenate(stream)[:n].astype(np.float64) * level
    return _unit(total)


def room_response(
    rng: np.random.Generator, *, rt60_s: float = 0.4, drr_db: float = -3.0, sample_rate: int = SAMPLE_RATE
) -> Floats:
    """A synthetic room impulse response, of unit energy: the direct path, five early reflections in the
    first 20 ms, and a diffuse tail of noise from 5 ms on that decays by 60 dB in `rt60_s`, `drr_db` below
    the direct path and reflections (-3 dB: a player about a metre from the host in a living room)."""
    length = max(1, int(rt60_s * sample_rate))
    t = np.arange(length) / sample_rate
    tail = rng.standard_normal(length) * 10 ** (-3.0 * t / rt60_s)
    tail[: int(0.005 * sample_rate)] = 0.0
    early = np.zeros(length)
    early[0] = 1.0
    for delay in rng.uniform(0.002, 0.020, size=5):
        early[min(length - 1, int(delay * sample_rate))] += rng.uniform(-0.5, 0.5)
    tail *= np.sqrt(np.sum(early**2) / max(np.sum(tail**2), 1e-12) * 10 ** (drr_db / 10))
    response: Floats = early + tail
    return response / float(np.sqrt(np.sum(response**2)))


def reverb(audio: Audio, rng: np.random.Generator, *, rt60_s: float = 0.4, sample_rate: int = SAMPLE_RATE) -> Audio:
    """`audio` in a room (`room_response`), as long as it was (the tail past its end is cut: pad it with the
    silence it should ring into) and at the same RMS level."""
    if len(audio) == 0:
        return audio
    response = room_response(rng, rt60_s=rt60_s, sample_rate=sample_rate)
    size = len(audio) + len(response) - 1
    wet = np.fft.irfft(np.fft.rfft(audio, size) * np.fft.rfft(response, size), size)[: len(audio)]
    return _unit(wet, _rms(audio))


def _rms(audio: Floats | Audio) -> float:
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0


def active_power(speech: Floats | Audio, *, frame: int = SAMPLE_RATE // 100) -> float:
    """The mean power of the speech's 10 ms frames within ACTIVE_DB of its loudest: pauses left out."""
    count = len(speech) // frame
    if count == 0:
        return float(np.mean(np.square(speech, dtype=np.float64))) if len(speech) else 0.0
    power = np.mean(np.square(speech[: count * frame].astype(np.float64)).reshape(count, frame), axis=1)
    return float(np.mean(power[power >= power.max() * 10 ** (ACTIVE_DB / 10)]))


def mix_at_snr(speech: Audio, noise: Audio, snr_db: float) -> Audio:
    """`speech` plus `noise` (as long or longer; cut to the speech's length) scaled so that the speech's
    active power over the noise's mean power is `snr_db`. Scaled down as a whole if it would clip."""
    if len(noise) < len(speech):
        raise ValueError(f"{len(noise)} samples of noise for {len(speech)} of speech")
    noise64 = noise[: len(speech)].astype(np.float64)
    noise_power = float(np.mean(np.square(noise64))) if len(noise64) else 0.0
    gain = np.sqrt(active_power(speech) / 10 ** (snr_db / 10) / noise_power) if noise_power > 0 else 0.0
    mixed = speech.astype(np.float64) + gain * noise64
    peak = float(np.max(np.abs(mixed))) if len(mixed) else 0.0
    return (mixed / max(1.0, peak)).astype(np.float32)


@dataclass(frozen=True)
class Condition:
    """What the host's microphone hears besides the player: nothing, white, pink or babble noise at an SNR
    in dB, with or without the room's reverb. Written "clean", "pink-5", "babble-10-reverb", "clean-reverb"."""

    kind: str
    snr_db: float | None = None
    reverb: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS or (self.kind == "clean") != (self.snr_db is None):
            raise ValueError(f"bad condition {self}: clean without an SNR, or {KINDS[1:]} with one")

    @property
    def name(self) -> str:
        snr = "" if self.snr_db is None else f"-{self.snr_db:g}"
        return f"{self.kind}{snr}{'-reverb' if self.reverb else ''}"

    @classmethod
    def parse(cls, text: str) -> Condition:
        found = re.fullmatch(r"(clean|white|pink|babble)(?:-(-?\d+(?:\.\d+)?))?(-reverb)?", text.strip().lower())
        if found is None:
            raise ValueError(f"unknown condition {text!r}: say clean, white-20, pink-5, babble-10-reverb...")
        kind, snr, reverberant = found.groups()
        return cls(kind, None if snr is None else float(snr), reverberant is not None)


def apply(condition: Condition, speech: Audio, *, seed: int, lang: str, cache_dir: Path) -> Audio:
    """`speech` as heard in `condition`, as long as it was: reverberated first if asked (babble too, in the
    same room from elsewhere: its own response), then the noise mixed in at the SNR. Pad the speech with
    the silence wanted around it first: the noise covers it all. The room and the noise come from
    generators seeded by `seed` alone, so the same seed gives the same noise at every SNR."""
    room_rng, noise_rng, babble_room_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    heard = reverb(speech, room_rng) if condition.reverb else speech.astype(np.float32)
    if condition.snr_db is None:
        return heard
    n = len(heard)
    if condition.kind == "white":
        noise = white(n, noise_rng)
    elif condition.kind == "pink":
        noise = pink(n, noise_rng)
    else:
        noise = babble(n, lang, noise_rng, cache_dir=cache_dir)
        noise = reverb(noise, babble_room_rng) if condition.reverb else noise
    return mix_at_snr(heard, noise, condition.snr_db)
