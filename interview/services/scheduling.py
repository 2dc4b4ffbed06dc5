"""The spaced-repetition scheduler that reviews of concept questions and of drills share."""

from datetime import timedelta
from functools import lru_cache

from fsrs import Scheduler


@lru_cache(maxsize=1)
def scheduler() -> Scheduler:
    """FSRS with its published default parameters, 90 % desired retention, and one ten-minute learning step.

    A concept question is a whole answer, not a flash card: a new one rated Good or Easy goes straight to
    days-long intervals, while Again or Hard brings it back within the same sitting.
    """
    return Scheduler(learning_steps=(timedelta(minutes=10),))
