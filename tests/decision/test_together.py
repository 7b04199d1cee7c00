"""Lines heard together add up their beliefs (`voicehost.decision.together`)."""

from __future__ import annotations

import math

from voicehost.decision.together import heard_together


def test_each_hearing_adds_its_log_share_and_a_phrase_it_did_not_weigh_counts_at_its_least() -> None:
    now = {"REINDEER": math.log(0.4), "WALRUS": math.log(0.6)}
    before = {"REINDEER": math.log(0.7), "SHERIFF": math.log(0.3)}
    together = heard_together(now, before)
    assert together["REINDEER"] == math.log(0.4) + math.log(0.7)
    assert together["WALRUS"] == math.log(0.6) + math.log(0.3)  # not weighed before: its least likely
    assert max(together, key=lambda phrase: together[phrase]) == "REINDEER"
    assert set(together) == set(now)


def test_nothing_before_leaves_the_line_as_it_was_heard() -> None:
    now = {2: -0.1, 3: -2.4}
    assert heard_together(now) == now
    assert heard_together(now, {}) == now
