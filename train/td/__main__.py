"""``python -m rlgames.train.td`` (`rlgames.train.td.cli`)."""

import sys

from rlgames.train.td.cli import main

sys.exit(main())
