"""``python -m rlgames.train.nnue`` (`rlgames.train.nnue.cli`)."""

import sys

from rlgames.train.nnue.cli import main

sys.exit(main())
