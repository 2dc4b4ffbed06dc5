"""The grading curve of an estimate, as the drill page states it.

Full credit when the answer is within the drill's relative tolerance of the right value
(|answer - right| <= tolerance * right). Outside it, the score falls linearly in the number of orders of
magnitude the answer is off, |log10(answer / right)|, from 1 at log10(1 + tolerance) to 0 at one order of
magnitude (ten times too high, or ten times too low), as an interviewer gives some credit for the right
order of magnitude and none beyond.
"""

import math

ZERO_AT_ORDERS = 1.0


def grade(answer: float, right: float, tolerance: float) -> float:
    """The score in [0, 1] of a positive answer against the positive right value."""
    if abs(answer - right) <= tolerance * right:
        return 1.0
    orders_off = abs(math.log10(answer / right))
    edge = math.log10(1 + tolerance)
    return max(0.0, min(1.0, 1 - (orders_off - edge) / (ZERO_AT_ORDERS - edge)))
