"""Where steps come from: the main model's calls, DataLoader batches, optimizer
steps and fastenough.step(), turned into steps by the engine (engine.py); the
mode watch tells training from evaluation."""
