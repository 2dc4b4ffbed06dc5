"""Drill rows for tests of the pages, practice and interviews: a small real spec, validated as a file's would be."""

from interview.estimation.drills import DrillSpec, Step, spec_problems
from interview.models import Drill

# Right answer: 2 · layers · kv_heads · 128 · 2 bytes, in KiB.
KV_SPEC = DrillSpec(
    prompt="A model has {layers} layers and {kv_heads} KV heads of 128. How many bytes of bf16 KV cache per token?",
    parameters={"layers": [32, 80], "kv_heads": [8]},
    steps=(Step("values", "2 * layers * kv_heads * 128", "K and V per head per layer"),
           Step("bytes", "2 * values", "2 bytes each", "B")),
    answer_unit="KiB",
    tolerance=0.1,
)
assert not spec_problems(KV_SPEC)


def make_drill(topic, slug: str = "kv-bytes", difficulty: str = "medium", spec: DrillSpec = KV_SPEC) -> Drill:
    return Drill.objects.create(slug=slug, title=f"Drill {slug}", topic=topic, difficulty=difficulty,
                                spec=spec.as_json(), source_path=f"drills/{topic.slug}/{slug}.toml",
                                citations=[{"what": "bf16 is 2 bytes", "source": "IEEE 754-2019"}])


def right_answer(attempt) -> str:
    """The attempt's right answer as a user would type it."""
    return f"{attempt.right_value} KiB"
