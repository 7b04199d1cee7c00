"""The one step that turns what the ears heard into what the host does: act at once, ask back, or ask again.

The recognizers only hear: they return evidence (`voicehost.ears.heard.Heard`: the free transcript,
and Whisper's scores of the phrases that make sense now). Its words are read once
(`voicehost.understanding.reading.Reading`); where scores exist, `decide` weighs them with a confidence
calibrated on recordings of the tuning voices (`calibration.json`, fitted by `python -m bench.calibrate`)
and the operating points chosen there.
"""

from __future__ import annotations

from voicehost.decision.calibration import Calibration, calibration
from voicehost.decision.cards import Evidence, evidence
from voicehost.decision.decide import decide
from voicehost.decision.features import FEATURES, GuessFeatures
from voicehost.decision.stops import is_stop
from voicehost.decision.unfinished import unfinished

__all__ = [
    "FEATURES",
    "Calibration",
    "Evidence",
    "GuessFeatures",
    "calibration",
    "decide",
    "evidence",
    "is_stop",
    "unfinished",
]
