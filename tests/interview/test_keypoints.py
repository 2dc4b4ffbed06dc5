"""Key-point matching: paraphrases that must score, off-topic answers that must not, and the real bank."""

import statistics
from pathlib import Path

import pytest
import yaml

from interview.keypoints import analyse, covered_indices, match_key_points, normalise_spelling, phrasing_terms

BANK = Path(__file__).resolve().parents[2] / "problems" / "questions"


def load_bank() -> dict[str, dict]:
    questions = {}
    for path in sorted(BANK.glob("*/*.md")):
        _, front, body = path.read_text().split("---", 2)
        meta = yaml.safe_load(front)
        questions[meta["id"]] = {**meta, "answer": body}
    return questions


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def point(*phrasings: str) -> dict:
    return {"text": phrasings[0], "phrasings": list(phrasings)}


def forms(text: str) -> set[str]:
    return set().union(*(token.forms for token in analyse(text)))


# ---- The analysis --------------------------------------------------------------------------------------


def test_number_formats_and_schedule_names_stay_whole_tokens():
    assert {"fp16", "bf16", "1f1b", "fp8"} <= forms("FP16 or BF16, 1F1B, FP8")


def test_big_o_terms_are_one_token_whatever_the_notation():
    assert "o(t^2)" in forms("memory is O(T^2)")
    assert "o(t^2)" in forms("memory is O(T²)")
    assert "o(t^2)" in forms("memory is O(T**2)")


def test_hyphens_and_underscores_split_words_and_keep_the_join():
    assert {"warm", "warmup"} <= forms("a linear warm-up")
    assert {"onchip", "chip"} <= forms("on_chip memory")


def test_warmup_matches_warm_up_both_ways():
    assert covered_indices("use a linear warm-up", [point("warmup")]) == [0]
    assert covered_indices("use a linear warmup", [point("warm-up")]) == [0]
    assert covered_indices("use a linear warm up", [point("warmup")]) == [0]


@pytest.mark.parametrize(("british", "american"), [
    ("normalisation", "normalization"), ("materialised", "materialized"), ("parallelise", "parallelize"),
    ("behaviour", "behavior"), ("analyse", "analyze"), ("quantising", "quantizing"),
])
def test_british_and_american_spellings_are_one_word(british, american):
    assert normalise_spelling(british) == normalise_spelling(american)
    assert covered_indices(f"we {british} it", [point(american)]) == [0]


def test_spelling_rules_leave_words_that_only_look_alike():
    assert normalise_spelling("elementwise") == "elementwise"
    assert normalise_spelling("four") == "four"


@pytest.mark.parametrize(("answer", "phrasing"), [
    ("train in bfloat16", "bf16 training"),
    ("train in bf16", "bfloat16 training"),
    ("the key-value cache grows with context", "kv cache"),
    ("the KV cache grows with context", "key value cache"),
    ("split across eight GPUs", "split across gpu"),
    ("a mixture of experts layer", "moe layer"),
])
def test_abbreviations_and_their_long_forms_match_each_other(answer, phrasing):
    assert covered_indices(answer, [point(phrasing)]) == [0]


def test_stop_words_are_not_required_and_word_order_does_not_matter():
    assert phrasing_terms("the running maximum and the normaliser") == ("run", "maximum", "normal")
    assert covered_indices("keep a normaliser and a maximum that is running", [point("running maximum and normaliser")])


def test_inflections_match():
    assert covered_indices("it recomputed the attention during the backward passes",
                           [point("recompute in backward")]) == [0]


def test_words_far_apart_do_not_match():
    far = "Tiles are mentioned here. " + "Then a long unrelated digression about many other things " * 3 + "and sram."
    assert covered_indices(far, [point("tile sram")]) == []
    assert covered_indices("Tiles that fit in sram.", [point("tile sram")]) == [0]


def test_a_point_is_covered_when_any_of_its_phrasings_matches_and_the_evidence_is_the_matched_stretch():
    [match] = match_key_points("It stores nothing: the backward pass recomputes the tiles.",
                               [point("save logsumexp", "recompute in backward")])
    assert match.covered and match.phrasing == "recompute in backward"
    assert match.evidence == "backward pass recomputes"


def test_an_empty_answer_covers_nothing():
    assert covered_indices("", [point("online softmax")]) == []


# ---- Real answers against the real bank ------------------------------------------------------------------

FLASH_PARAPHRASE = """
FlashAttention never materializes the full T by T attention matrix in HBM. It splits Q, K and V into
tiles that fit into SRAM and fuses the matmuls, masking and softmax into a single kernel. To do the
softmax block by block it keeps a running max and a running sum per row and rescales the partial
results (online softmax). In the backward pass it recomputes the attention tiles from Q, K, V and the
saved logsumexp instead of storing them. So it's exact, not an approximation, and IO-aware: far fewer
HBM reads and writes, memory linear in the sequence length.
"""

GAN_ANSWER = """
A GAN trains a generator against a discriminator in a minimax game. The generator maps noise to
samples and the discriminator tries to tell real from fake. Training is unstable: mode collapse, vanishing
gradients when the discriminator wins, and oscillation. WGAN with a gradient penalty, spectral norm and
two time-scale learning rates help.
"""

MIXED_PRECISION_PARAPHRASE = """
With fp16 the exponent range is tiny so small gradients underflow to zero; you multiply the loss by a big
scale factor before backward, unscale the grads before the optimizer step, and skip the step and lower the
scale if you find infs or NaNs (dynamic loss scaling). bfloat16 keeps fp32's exponent range, so it needs
no loss scaling, at the price of fewer mantissa bits.
"""


def test_a_paraphrased_flashattention_answer_scores_most_points(bank):
    covered = covered_indices(FLASH_PARAPHRASE, bank["flash-attention"]["key_points"])
    assert {0, 1, 2, 3} <= set(covered)


def test_an_answer_about_gans_scores_zero_on_flashattention(bank):
    assert covered_indices(GAN_ANSWER, bank["flash-attention"]["key_points"]) == []


def test_the_gan_answer_does_score_on_the_gan_question(bank):
    assert len(covered_indices(GAN_ANSWER, bank["gans-and-their-challenges"]["key_points"])) >= 2


def test_a_paraphrased_loss_scaling_answer_scores(bank):
    points = bank["fp16-loss-scaling"]["key_points"]
    assert len(covered_indices(MIXED_PRECISION_PARAPHRASE, points)) >= len(points) // 2 + 1


def test_a_loss_scaling_answer_scores_nothing_on_pipeline_parallelism(bank):
    assert covered_indices(MIXED_PRECISION_PARAPHRASE, bank["pipeline-parallelism"]["key_points"]) == []


def test_every_model_answer_covers_most_of_its_own_key_points(bank):
    shares = {}
    for slug, question in bank.items():
        points = question["key_points"]
        shares[slug] = len(covered_indices(question["answer"], points)) / len(points)
    weak = {slug: share for slug, share in shares.items() if share < 0.5}
    assert not weak, f"model answers that cover under half their own key points: {weak}"
    assert statistics.mean(shares.values()) >= 0.85


def test_answers_to_unrelated_questions_cover_few_key_points(bank):
    def unrelated(a: dict, b: dict) -> bool:
        return a["topic"] != b["topic"] and b["id"] not in a.get("related", []) and a["id"] not in b.get("related", [])

    shares = []
    for question in bank.values():
        for other in bank.values():
            if unrelated(question, other):
                points = question["key_points"]
                shares.append(len(covered_indices(other["answer"], points)) / len(points))
    assert statistics.mean(shares) <= 0.06
    assert sorted(shares)[int(0.95 * len(shares))] <= 0.2
