"""fastenough: measure where a PyTorch run's time goes, find the waste that can be
removed, verify that a faster path gives the same answers, and say when to stop."""

__version__ = "0.1.0"
