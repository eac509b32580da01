"""Monte Carlo tree search over many trees at once: PUCT and UCT, and Gumbel AlphaZero's root search, on
one compiled tree (as mctx builds ``gumbel_muzero_policy`` on one ``search``).

Modules, by concept: `config` (`MCTSConfig`, `GumbelConfig` and the parameter slots they fill), `tree`
(the arrays of a batch of trees), `ops` (selection, expansion and backup,
given the selection rules), `selection` (UCB1 and PUCT), `run` (the compiled simulation loop and leaf
values), `room` (growing the trees within a time budget), `result` (a tree's root as a `SearchResult`),
`drivers` (the Python side shared by every MCTS), `puct` (`MCTS`, `MultiTreeMCTS`), `gumbel` and
`gumbel_ops` (`Gumbel`, `MultiTreeGumbel`: Gumbel top-k and sequential halving at the root).
"""

from rlgames.search.mcts.config import GumbelConfig, MCTSConfig
from rlgames.search.mcts.gumbel import Gumbel, MultiTreeGumbel
from rlgames.search.mcts.puct import MCTS, MultiTreeMCTS

__all__ = ["MCTS", "Gumbel", "GumbelConfig", "MCTSConfig", "MultiTreeGumbel", "MultiTreeMCTS"]
