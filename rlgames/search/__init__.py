"""Search algorithms, generic over every game: they use only a game's kernels and its State API."""
