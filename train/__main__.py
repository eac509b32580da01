"""``python -m rlgames.train``: the AlphaZero trainer (`rlgames.train.alphazero`)."""

import sys

from rlgames.train.alphazero.cli import main

sys.exit(main())
