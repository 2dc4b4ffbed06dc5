"""Estimation drills without Django: the formula evaluator, the units of answers, the grading curve, draws."""
