"""The app's settings with the benchmarks' URLconf (bench/urls.py) and nothing else changed."""

from interview.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
