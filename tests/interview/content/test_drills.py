"""The repository's drill files: each loads, each draw works out and renders, and published figures come out."""

from pathlib import Path

import pytest

from interview.content.drills import load_drills
from interview.content.questions import load_question_bank
from interview.estimation.drills import DrillSpec, draw_parameters, flatten_choices, work
from interview.estimation.grading import grade
from interview.estimation.units import parse_answer, parse_unit, same_dimension

CONTENT = Path(__file__).resolve().parents[3] / "problems"
DRAWS_PER_DRILL = 20
# The topics, each with a drill that drills it.
TOPIC_DRILLS = {
    "model states under fp32, mixed precision and ZeRO 1-3": [
        "fp32-sgd-momentum-memory", "mixed-precision-adam-memory", "zero-stage-1-memory", "zero-stage-2-memory",
        "zero-stage-3-memory"],
    "activation memory per layer and with checkpointing": [
        "activation-memory-per-layer", "activation-memory-full-checkpointing", "checkpointing-step-time"],
    "KV cache: MHA against GQA/MQA, dtype, paged blocks": [
        "kv-cache-per-token", "kv-cache-mha-gqa-mqa", "paged-kv-blocks"],
    "6ND and the time on N GPUs at an MFU": ["training-flops-6nd", "training-time-at-mfu"],
    "attention against MLP FLOPs": ["attention-vs-mlp-flops", "attention-mlp-crossover"],
    "arithmetic intensity and the roofline": ["gemm-arithmetic-intensity", "roofline-ridge-point",
                                              "gemm-time-roofline"],
    "memory-bound decode": ["decode-throughput-memory-bound", "decode-throughput-batched"],
    "TP all-reduce over NVLink and InfiniBand": ["tp-allreduce-time-nvlink", "tp-allreduce-time-infiniband"],
    "pipeline bubble": ["pipeline-bubble", "pipeline-microbatches"],
    "DP gradient traffic": ["dp-gradient-traffic", "dp-allreduce-time-infiniband"],
    "FP8 and INT4 with group scales": ["fp8-kv-cache-saving", "int4-group-quantization-memory"],
    "MoE active parameters": ["moe-active-parameters"],
    "speculative decoding": ["speculative-speedup"],
    "gradient accumulation": ["gradient-accumulation-steps"],
}


@pytest.fixture(scope="module")
def drills():
    bank = load_question_bank(CONTENT)
    return {drill.slug: drill for drill in load_drills(
        CONTENT, topic_ids={topic.slug for topic in bank.topics},
        question_ids={question.slug for question in bank.questions})}


def test_there_are_thirty_distinct_formulas_covering_every_topic(drills):
    formulas = {tuple(step.formula for step in drill.spec.steps) for drill in drills.values()}
    assert len(formulas) >= 30
    missing = {topic: [slug for slug in slugs if slug not in drills] for topic, slugs in TOPIC_DRILLS.items()}
    assert not any(missing.values()), missing


def test_every_drill_cites_its_constants_and_states_units_that_convert(drills):
    for drill in drills.values():
        assert drill.citations and all(c["what"].strip() and c["source"].strip() for c in drill.citations)
        for step in drill.spec.steps:
            parse_unit(step.unit)
        assert same_dimension(drill.spec.steps[-1].unit, drill.spec.answer_unit), drill.slug


@pytest.mark.parametrize("seed", range(DRAWS_PER_DRILL))
def test_every_draw_renders_and_its_worked_answer_earns_full_credit(drills, seed):
    for drill in drills.values():
        worked = work(drill.spec, draw_parameters(drill.spec, seed))
        assert "{" not in worked.prompt and "}" not in worked.prompt, drill.slug
        assert all(step.substituted and step.shown for step in worked.steps)
        shown_answer = parse_answer(worked.answer_shown, unit=drill.spec.answer_unit, right_value=worked.answer)
        assert grade(shown_answer, worked.answer, drill.spec.tolerance) == 1.0, (drill.slug, worked.answer_shown)


def answer(spec: DrillSpec, **chosen) -> float:
    """The drill's answer for these parameters, each one of the file's own values (an option by its label's start)."""
    chosen_values = {}
    for name, value in chosen.items():
        values = spec.parameters[name]
        if isinstance(values[0], dict):
            value = next(option for option in values if option["label"].startswith(value))
        else:
            assert value in values, f"{name} = {value} is not one of the file's values {values}"
        chosen_values[name] = value
    return work(spec, flatten_choices(chosen_values)).answer


def test_the_zero_papers_figures_for_a_75b_model_on_64_gpus(drills):
    # ZeRO, figure 1: 120 GB without sharding, 31.4 GB (P_os), 16.6 GB (P_os+g), 1.9 GB (P_os+g+p).
    assert answer(drills["mixed-precision-adam-memory"].spec, params_b=7.5) == pytest.approx(120)
    assert answer(drills["zero-stage-1-memory"].spec, params_b=7.5, gpus=64) == pytest.approx(31.4, abs=0.05)
    assert answer(drills["zero-stage-2-memory"].spec, params_b=7.5, gpus=64) == pytest.approx(16.6, abs=0.05)
    assert answer(drills["zero-stage-3-memory"].spec, params_b=7.5, gpus=64) == pytest.approx(1.9, abs=0.05)


def test_gpt3_training_compute_is_6nd(drills):
    # GPT-3 175B on 300B tokens: 3.14e23 FLOPs (Brown et al., 2020); 6ND gives 3.15e23.
    flops = answer(drills["training-flops-6nd"].spec, params_b=175, tokens_b=300)
    assert flops == pytest.approx(3.14e23, rel=0.01)


def test_the_kv_cache_of_llama_2_70b_is_320_kib_per_token_in_bf16(drills):
    assert answer(drills["kv-cache-per-token"].spec, model="Llama 2 70B", dtype="bf16") == 320


def test_the_activation_memory_of_a_gpt3_layer_follows_korthikanti(drills):
    s, b, h, a = 2048, 1, 12288, 96
    expected_bytes = s * b * h * (34 + 5 * a * s / h)
    got = answer(drills["activation-memory-per-layer"].spec, hidden=h, heads=a, batch=b, seq=s)
    assert got == pytest.approx(expected_bytes / 1e9)


def test_more_published_figures(drills):
    # Chinchilla: 5.76e23 FLOPs at 20 tokens per parameter gives about 70B parameters.
    assert answer(drills["chinchilla-optimal-size"].spec, budget_e23=5.76) == pytest.approx(70, rel=0.02)
    # Mixtral 8x7B: 12.9B active parameters per token.
    mixtral = answer(drills["moe-active-parameters"].spec, layers=32, hidden=4096, experts=8, ffn=14336, top_k=2,
                     dense_b=1.6)
    assert mixtral == pytest.approx(12.9, rel=0.01)
    # H100 SXM: 989 TFLOP/s over 3.35 TB/s, a ridge at about 295 FLOP/B.
    assert answer(drills["roofline-ridge-point"].spec, gpu="H100", precision="BF16") == pytest.approx(295, rel=0.01)
    assert answer(drills["pipeline-bubble"].spec, stages=4, microbatches=8) == pytest.approx(100 * 3 / 11)
    # Leviathan et al.: α = 0.8, γ = 3 gives (1 - 0.8⁴) / 0.2 = 2.952 tokens per target call.
    assert answer(drills["speculative-expected-tokens"].spec, gamma=3, alpha_pct=80) == pytest.approx(2.952)
