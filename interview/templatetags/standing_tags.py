"""Where an accepted submission stands, drawn: a histogram of its peers' ratios as server-rendered SVG."""

from dataclasses import dataclass

from django import template

from interview.selectors.standing import RATIO_EDGES, Bin, Placing

register = template.Library()

# The SVG's own units: it scales to its box, and its text with it, so the box's CSS caps its width.
WIDTH, HEIGHT, PAD = 320, 122, 6
BASELINE, TALLEST = 96, 60  # room above the tallest bar for its count and the "you" mark
SLOT = (WIDTH - 2 * PAD) / (len(RATIO_EDGES) + 1)
GAP = 5


@dataclass(frozen=True)
class DrawnBar:
    bin: Bin
    x: float
    y: float
    width: float
    height: float

    @property
    def middle(self) -> float:
        return round(self.x + self.width / 2, 1)

    @property
    def count_y(self) -> float:
        return round(self.y - 4, 1)

    @property
    def mine_y(self) -> float:
        return round(self.y - 16, 1)


@register.inclusion_tag("interview/_histogram.html")
def histogram(placing: Placing, submission_id: int) -> dict:
    """The placing's bins as bars scaled to the tallest, the axis's edge labels between them; the figure's caption
    (standing-<measure>-<submission id>, in interview/_standing.html) names it."""
    tallest = placing.tallest or 1
    bars = []
    for index, counted in enumerate(placing.bins):
        height = round(TALLEST * counted.count / tallest, 1) if counted.count else 0
        # A bin of one among hundreds still shows as a sliver, not as nothing.
        height = max(height, 2) if counted.count else 0
        x = round(PAD + index * SLOT + GAP / 2, 1)
        bars.append(DrawnBar(counted, x, round(BASELINE - height, 1), round(SLOT - GAP, 1), height))
    edges = [(round(PAD + (index + 1) * SLOT, 1), f"{edge:g}×") for index, edge in enumerate(RATIO_EDGES)]
    return {"placing": placing, "bars": bars, "edges": edges, "caption_id": f"standing-{placing.measure}-{submission_id}",
            "width": WIDTH, "height": HEIGHT, "baseline": BASELINE, "axis_end": WIDTH - PAD, "pad": PAD,
            "label_y": BASELINE + 14}
