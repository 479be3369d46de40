"""Zilch rules engine: pure Python, no I/O, no clock, randomness injected."""
