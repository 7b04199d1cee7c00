"""The tree decoder that scores a board's worth of candidate transcripts in one pass (whisper_tree.py).

- A candidate's score never depends on what else is scored with it: alone, among a board's worth, in
  another order, or over several calls that reuse what the first computed, the same bits. (Before, a
  card's score moved by up to 0.3 nats with the other cards on the board.)
- The same bits whether a pass's nodes are computed by one thread or shared between several.
- Numpy's BLAS runs one thread while an utterance is heard: OpenBLAS's threads made the decoder's
  small products 50 times slower on a loaded 2-core machine.

The decoder's weights are the real Whisper base model's; the audio's encoding is random (the decoder's
arithmetic is what is tested here, not what it hears).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.speech_models import whisper_base_dir
from voicehost.ears.recognizers.whisper_tree import TreeScorer, one_blas_thread

START = [50258, 50259, 50359, 50363]  # <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>
PERIOD = 13


@pytest.fixture(scope="module")
def scorer() -> TreeScorer:
    return TreeScorer(whisper_base_dir())


def candidates() -> list[tuple[list[int], list[int]]]:
    """A board's worth: 26 "cards" of 1-4 tokens, alone and after three lead-ins of different lengths."""
    rng = np.random.default_rng(11)
    cards = [[int(t) for t in rng.integers(300, 40000, size=int(rng.integers(1, 5)))] for _ in range(26)]
    leads = [[], [40, 1223], [40, 1223, 309, 264], [286, 519, 309, 311, 264, 220]]
    return [(START, [*lead, *card, PERIOD]) for lead in leads for card in cards]


def test_a_candidate_scores_the_same_whatever_is_scored_with_it(scorer: TreeScorer) -> None:
    memory = scorer.memory(np.random.default_rng(5).standard_normal((150, scorer.width)).astype(np.float32))
    pairs = candidates()
    together = scorer.score(memory, pairs)
    assert together == scorer.score(memory, pairs[::-1])[::-1]
    alone = [scorer.score(memory, [pair])[0] for pair in pairs[::7]]
    assert alone == together[::7]


def test_scores_computed_over_several_calls_are_those_of_one(scorer: TreeScorer) -> None:
    memory = scorer.memory(np.random.default_rng(6).standard_normal((100, scorer.width)).astype(np.float32))
    pairs = candidates()
    whole = scorer.score(memory, pairs)
    scoring = scorer.scoring(memory)
    first = scoring.score([(prefix, tokens[:2]) for prefix, tokens in pairs])  # first tokens only
    scoring.expect(pairs[50:])  # computed with the next call, returned by the one after
    assert scoring.score(pairs[:50]) == whole[:50]
    nodes = scoring.nodes
    assert scoring.score(pairs[50:]) == whole[50:]
    assert scoring.nodes == nodes  # nothing computed twice
    assert all(part >= score for part, score in zip(first, whole, strict=True))  # a prefix bounds its whole


@pytest.mark.parametrize("threads", [2, 3])
def test_the_scores_are_the_same_with_the_nodes_shared_between_threads(scorer: TreeScorer, threads: int) -> None:
    """The projection's products on several threads, and a pass's nodes shared between workers (a block of
    rows each, a node's ancestors often in another's block): the same bits as one thread."""
    encoded = np.random.default_rng(8).standard_normal((120, scorer.width)).astype(np.float32)
    shared = TreeScorer(whisper_base_dir(), threads=threads)
    pairs = candidates()
    assert len(shared.parts(len(pairs))) == threads and len(scorer.parts(len(pairs))) == 1
    assert shared.score(shared.memory(encoded), pairs) == scorer.score(scorer.memory(encoded), pairs)


def test_a_pool_that_takes_no_more_work_leaves_the_blocks_to_the_caller(scorer: TreeScorer) -> None:
    """At exit the pool takes no more work while the priors ahead may still be computed: the caller
    computes every block, the same scores, no error."""
    encoded = np.random.default_rng(9).standard_normal((80, scorer.width)).astype(np.float32)
    ending = TreeScorer(whisper_base_dir(), threads=2)
    assert ending._pool is not None
    ending._pool.shutdown()
    pairs = candidates()[::2]
    assert ending.score(ending.memory(encoded), pairs) == scorer.score(scorer.memory(encoded), pairs)


def test_blas_runs_one_thread_while_hearing() -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    with one_blas_thread():
        inside = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    after = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    assert inside and set(inside) == {1}
    assert after == before
