"""``python -m rlgames.train.alphazero``, the same as ``python -m rlgames.train``."""

import sys

from rlgames.train.alphazero.cli import main

sys.exit(main())
