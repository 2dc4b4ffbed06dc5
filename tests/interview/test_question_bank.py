"""The real question bank in problems/: every file valid, every planned question present, the sync clean."""

import pytest

from interview.content.errors import ContentError
from interview.content.questions import load_question_bank
from interview.models import Question
from interview.services.content_sync import sync_questions
from tests.interview.repository import CONTENT, front_matter_by_id

# The twelve question-and-answer paragraphs of 001_b1d36ed18d41dc40.txt, one broad question each.
PLANNED_FROM_001 = [
    "self-attention-explained", "rnn-vs-transformer", "positional-encodings", "data-vs-model-parallelism",
    "mixed-precision-training", "gradient-accumulation", "gans-and-their-challenges", "vae-vs-diffusion",
    "autoregressive-models", "warmup-cosine-schedule", "regularizing-large-models",
    "debugging-a-model-that-does-not-learn",
]  # fmt: skip
# Every point of 000_2e1d6a4192f4eaaa.txt, one deeper question each.
PLANNED_FROM_000 = [
    "mhsa-from-scratch", "attention-memory-quadratic", "flash-attention", "sdpa", "gqa-mqa", "ddp", "fsdp-zero",
    "tensor-parallelism", "tensor-parallel-mlp", "tensor-parallel-attention-heads", "tensor-parallelism-within-node",
    "pipeline-parallelism", "sequence-context-parallelism", "3d-4d-parallelism", "why-nonlinearity",
    "sigmoid-tanh-saturation", "relu-dead-units", "gelu-silu", "swiglu", "weight-decay-adamw", "dropout",
    "data-augmentation-mixup-cutmix", "label-smoothing", "early-stopping", "stochastic-depth",
    "normalization-as-regularizer", "regularizing-llm-fine-tuning", "lora", "mixed-precision-master-weights",
    "fp16-loss-scaling", "bf16-vs-fp16", "fp8-training", "gradient-checkpointing", "pre-norm-vs-post-norm",
    "rmsnorm", "rope", "sliding-window-sparse-attention", "mixture-of-experts", "speculative-decoding",
    "paged-kv-cache", "quantization-fp8-int4", "scaling-laws", "data-mixtures", "rlhf", "dpo",
    "rl-verifiable-rewards",
]  # fmt: skip
MHSA_LISTING_LINES = range(3, 21)  # the class MHSA listing in 000_2e1d6a4192f4eaaa.txt, imports included


def load_bank():
    try:
        return load_question_bank(CONTENT)
    except ContentError as error:
        problems = str(error)
    pytest.fail(problems, pytrace=False)


def test_every_question_file_is_valid():
    bank = load_bank()
    assert len(bank.questions) > 45


def test_every_planned_question_exists():
    ids = set(front_matter_by_id())
    missing = [slug for slug in PLANNED_FROM_001 + PLANNED_FROM_000 if slug not in ids]
    assert not missing, f"planned questions without a file: {', '.join(missing)}"


def test_each_planned_question_names_the_seed_it_comes_from():
    sources = {slug: front_matter.get("source") for slug, (front_matter, _) in front_matter_by_id().items()}
    wrong = [
        slug
        for slug in PLANNED_FROM_001
        if sources.get(slug, "001_b1d36ed18d41dc40.txt") != "001_b1d36ed18d41dc40.txt"
    ]
    wrong += [
        slug
        for slug in PLANNED_FROM_000
        if sources.get(slug, "000_2e1d6a4192f4eaaa.txt") != "000_2e1d6a4192f4eaaa.txt"
    ]
    assert not wrong, f"questions whose `source` is not their seed: {', '.join(wrong)}"


def test_the_mhsa_prompt_shows_the_seed_listing_it_asks_about_in_full():
    seed = (CONTENT / "seeds" / "000_2e1d6a4192f4eaaa.txt").read_text(encoding="utf-8").splitlines()
    front_matter, _ = front_matter_by_id()["mhsa-from-scratch"]
    prompt = front_matter["prompt"]
    missing = [
        seed[n - 1] for n in MHSA_LISTING_LINES if seed[n - 1].strip() and seed[n - 1].rstrip() not in prompt
    ]
    assert not missing, "lines of the listing missing from mhsa-from-scratch:\n" + "\n".join(missing)


@pytest.mark.django_db
def test_the_real_bank_syncs_and_a_second_sync_changes_nothing():
    load_bank()
    sync_questions(content_dir=CONTENT)
    reports = sync_questions(content_dir=CONTENT)
    assert not any(report.changed for report in reports), [str(report) for report in reports]
    assert Question.objects.live().count() == len(load_bank().questions)
