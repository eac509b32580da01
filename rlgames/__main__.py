import sys

from rlgames.cli import main

sys.exit(main())
