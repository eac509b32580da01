"""The arena: matches and round-robin tournaments between agents given by spec strings, with Elo ratings.

>>> from rlgames.arena import ArenaConfig, run_arena, write_results
>>> result = run_arena(ArenaConfig("tic_tac_toe", ("random", "solver"), games=20, seed=1))
>>> write_results(result, "arena-out")  # results.json, games.csv, report.md, elo.png, scores.png

Modules: `tournament` (scheduling and running), `match` (one game), `journal` (each game written as it
ends, so that a stopped match resumes), `openings`, `positions` (lines of moves in files, labelled or not),
`sampling` (labelled files from varied games), `whole_games` (keeping a result against the exact solver),
`scores` (pair results), `elo` (maximum-likelihood ratings), `sprt`, `report`, `plots`, `tblog`
(TensorBoard); the progress bar is tqdm's.
"""

from rlgames.arena.elo import EloFit, fit_elo
from rlgames.arena.report import console_report, results_dict, write_results
from rlgames.arena.sprt import SprtConfig, SprtResult
from rlgames.arena.tblog import log_to_tensorboard
from rlgames.arena.tournament import ArenaConfig, ArenaResult, resolve_anchor, run_arena

__all__ = [
    "ArenaConfig",
    "ArenaResult",
    "EloFit",
    "SprtConfig",
    "SprtResult",
    "console_report",
    "fit_elo",
    "log_to_tensorboard",
    "resolve_anchor",
    "results_dict",
    "run_arena",
    "write_results",
]
