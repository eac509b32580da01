"""Self-play training: `python -m train GAME`."""
