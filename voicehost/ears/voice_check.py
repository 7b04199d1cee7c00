"""Whether the audio under a result's words sounds like a voice: the speech-presence check.

A closed grammar has to put whatever it hears somewhere, so loud noise is decoded as a card with a
word posterior near 1.0; the check lets such words keep at most NOT_SPEECH_CONFIDENCE. Pure numpy, so
that the vosk engine works without faster-whisper (and its VAD) installed.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from voicehost.audio.samples import SAMPLE_RATE, Audio

SPEECH_BAND_HZ: Final = (100.0, 4000.0)
"""Where a voice has its pitch harmonics and formants; above it, fricatives look like hiss."""
ANALYSIS_WINDOW: Final = 512
"""32 ms frames (16 kHz) for the speech check: long enough to resolve pitch harmonics."""
ANALYSIS_HOP: Final = 160
"""10 ms between frames."""
MODULATION_BANDS: Final = 16
"""Mel-spaced bands between SPEECH_BAND_HZ: each is 3 to 15 FFT bins wide, which averages away most
of a noise's frame-to-frame scatter while keeping a syllable's rise and fall."""
FLATNESS_SMOOTHING_FRAMES: Final = 5
"""Frames averaged before the flatness is taken (Welch): a noise's raw periodogram is spiky (flatness
~0.56), averaged it is flat (~0.87), while a voice's harmonics and formants stay."""
SPEECH_MAX_FLATNESS: Final = 0.5
"""A voice's smoothed spectral flatness is at most this (geometric over arithmetic mean, 0..1).

Tuned on the spans of the words vosk-ko heard (154 in tests/system/test_fuzz.py's noises, alone and with
quiet around them; 221 in espeak-ng ko speech: card words in four voices, clean, trimmed tight and
in white noise at 20, 10 and 5 dB SNR, and five sentences): white, Gaussian and rail-to-rail noise
0.86-0.89 at any level; speech 0.00-0.17 clean or at 20 dB SNR, up to 0.31 at 10 dB and 0.80 at
5 dB (where vosk mostly mishears the word anyway)."""
SPEECH_MIN_MODULATION_DB: Final = 3.5
"""A voice's band energies move at least this much (median over bands of the interquartile range in
dB over the frames): syllables rise and fall, a steady sound does not.

Tuned on the same spans: square and clipped tones 0.0-0.1 dB; speech 6.1 dB or more clean or at
20 dB SNR, 4.5 at 10 dB. White noise reaches 3.8 dB; flatness is what rejects it. Known gaps: a
short beep with quiet around it is all onset and offset (5.8 dB for 0.5 s of a square wave), and
so is a word far shorter than MIN_SPEECH_SPAN_S sitting on a tone's onset: both pass as a voice."""
NOT_SPEECH_CONFIDENCE: Final = 0.3
"""The most a word heard over noise is worth: below the host's LOW_ASR_CONFIDENCE (0.6), so it asks
back ("did you say ...?") instead of acting; kept above 0 because a voice in odd noise may fail the
check, and then the player only has to say yes."""


def speech_evidence(audio: Audio, rate: int = SAMPLE_RATE) -> tuple[float, float]:
    """(spectral flatness, modulation depth in dB) of some audio: the two ways a voice differs from noise.

    A voice puts its energy into harmonics and formants (a flat spectrum is hiss, a fan, static) and
    changes from one syllable to the next (a spectrum that holds still is a hum, a tone, an engine).
    Pure numpy, about a millisecond for a word: vosk must work without faster-whisper's VAD."""
    samples = np.nan_to_num(np.asarray(audio, dtype=np.float64).reshape(-1))
    if len(samples) < ANALYSIS_WINDOW:
        samples = np.pad(samples, (0, ANALYSIS_WINDOW - len(samples)))
    frames = np.lib.stride_tricks.sliding_window_view(samples, ANALYSIS_WINDOW)[::ANALYSIS_HOP]
    power = np.abs(np.fft.rfft(frames * np.hanning(ANALYSIS_WINDOW), axis=1)) ** 2
    in_band, bands = _speech_bands(rate)
    tiny = 1e-20
    spectrum = power[:, in_band]
    count = min(FLATNESS_SMOOTHING_FRAMES, len(spectrum))
    running = np.cumsum(np.vstack([np.zeros((1, spectrum.shape[1])), spectrum]), axis=0)
    smoothed = (running[count:] - running[:-count]) / count + tiny
    flatness = np.exp(np.mean(np.log(smoothed), axis=1)) / np.mean(smoothed, axis=1)
    energies = power @ bands
    # At most 50 dB below the loudest band: FFT leakage between a tone's harmonics is no modulation.
    energies = np.maximum(energies, energies.mean(axis=0).max() * 1e-5 + tiny)
    decibels = 10 * np.log10(energies)
    low, high = np.percentile(decibels, [25, 75], axis=0)
    return float(np.median(flatness)), float(np.median(high - low))


def sounds_like_a_voice(flatness: float, modulation_db: float) -> bool:
    """The verdict on `speech_evidence`: shaped like a voice, and moving like one."""
    return flatness <= SPEECH_MAX_FLATNESS and modulation_db >= SPEECH_MIN_MODULATION_DB


@cache
def _speech_bands(rate: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """The FFT bins inside SPEECH_BAND_HZ, and a bins-by-bands matrix summing them into mel bands."""
    frequencies = np.fft.rfftfreq(ANALYSIS_WINDOW, 1 / rate)
    low, high = SPEECH_BAND_HZ
    mel_low, mel_high = (2595 * np.log10(1 + hz / 700) for hz in (low, high))
    edges = 700 * (10 ** (np.linspace(mel_low, mel_high, MODULATION_BANDS + 1) / 2595) - 1)
    bands = np.zeros((len(frequencies), MODULATION_BANDS))
    for band in range(MODULATION_BANDS):
        bands[(frequencies >= edges[band]) & (frequencies < edges[band + 1]), band] = 1.0
    return (frequencies >= low) & (frequencies <= high), bands
