"""Wall-clock time in the units the API uses."""

import time


def now() -> float:
    return time.time()


def now_ms() -> int:
    return int(time.time() * 1000)
