"""The settings of the tree searches beside where the compiled tree operations read them: `MCTSConfig`
(PUCT and UCT) and `GumbelConfig` (Gumbel AlphaZero's root), each with the float64 parameter slots its
``params()`` fills for the compiled code."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

# Slots of MCTS's search parameters (float64), set by `MCTSConfig.params`.
P_C, P_C_BASE, P_PUCT, P_SOLVER, P_UNVISITED, P_ROLLOUTS, P_RAVE, P_EXPANSION, P_FORCED = range(9)
NUM_PARAMS = 9

# Slots of the Gumbel parameters (float64).
G_C_VISIT, G_C_SCALE, G_RESCALE, G_GUMBEL_SCALE = range(4)
NUM_GUMBEL_PARAMS = 4


@dataclass(frozen=True, kw_only=True)
class MCTSConfig:
    """Knobs of `MCTS` and `MultiTreeMCTS`.

    * ``simulations`` -- per search (AlphaZero: 800, Silver et al. 2018); ``time_limit`` (seconds, or
      None) stops earlier;
    * ``selection`` -- ``"uct"``: UCB1 ``mean + uct_c * sqrt(ln N(parent) / N(child))``, unvisited children
      first (Kocsis & Szepesvari 2006). ``uct_c`` defaults to ``2 * sqrt(2)``: UCB1's ``sqrt(2)`` (Auer et
      al. 2002; the notes' ``C = 1.4`` for win rates in [0, 1]) rescaled to results in [-1, 1];
      OpenSpiel's MCTSBot uses 2. ``"puct"``: AlphaZero's ``Q + c(N) * P * sqrt(N(parent)) / (1 + N(child))``
      with ``c(N) = c_puct + log((1 + N + c_puct_base) / c_puct_base)``, ``c_puct = 1.25`` and
      ``c_puct_base = 19652`` (Silver et al. 2018, pseudocode; ``c_puct_base = None`` keeps ``c_puct``
      constant) and ``Q = unvisited_value`` for an unvisited child (0, as in that pseudocode). That
      pseudocode's values are in [0, 1], where its 0 is a loss and its ``c_puct`` twice as large against
      the values as here; the faithful translation (2.5, -1) kept no more of connect four's whole games
      (docs/research/selfplay-efficiency.md#puct-scale);
    * ``rollouts`` -- random rollouts per leaf without an evaluator;
    * ``batch_size`` -- leaves per tree and batch for an evaluator without a compiled kernel (virtual
      losses keep them apart);
    * ``solver`` -- the MCTS-solver (Winands, Bjornsson & Saito 2008): proven wins, losses and draws
      are backed up and a proven root ends the search;
    * ``root_noise`` -- mixes ``Dirichlet(dirichlet_alpha)`` noise into the root priors with weight
      ``dirichlet_epsilon`` (AlphaZero: alpha 0.3 for chess, 0.15 shogi, 0.03 Go; epsilon 0.25). It
      acts through the priors, so under PUCT only; the stored priors are restored after the search;
    * ``temperature`` -- of the final move choice: 0 plays the most-visited child, T > 0 draws from
      ``visits ** (1 / T)`` (AlphaZero self-play: 1 for the first moves, then 0);
    * ``rave`` -- rapid action value estimation (Gelly & Silver 2007, MoGo): each child also keeps the
      mean result of the simulations through its parent in which its action was played later by the
      same player (all moves as first: in the tree below or in the playout), and selection reads
      ``(1 - beta) * Q + beta * Q_amaf`` in place of ``Q``, with the hand-selected schedule
      ``beta = sqrt(rave_equivalence / (3 N(child) + rave_equivalence))``: all AMAF at first, half at
      ``rave_equivalence / 3`` visits. The exploration term counts an unvisited child with AMAF results
      as visited once. Leaves must be valued in compiled code (rollouts or an evaluator's kernel);
    * ``rave_equivalence`` -- ``k`` of that schedule (MoGo's 1000, Gelly & Silver 2007);
    * ``expansion_threshold`` -- for an evaluator without a compiled kernel (a network) given a playout
      too: a leaf is sent to the evaluator, and expanded, on its ``expansion_threshold``-th visit, and
      the visits before are valued by one compiled playout each, inside the compiled descent (AlphaGo's
      ``n_thr``, 40 on its 48 CPUs and 8 GPUs, Silver et al. 2016): the network's time goes to the nodes
      that the search comes back to. The root is sent at once; 1 sends every leaf at once;
    * ``forced_playouts`` -- ``k`` of KataGo's forced playouts and policy target pruning (Wu 2019, section
      3.1, ``k = 2``), under PUCT: a root child already visited but fewer than ``sqrt(k * P * N)`` times
      (``N`` the root children's visits) is selected before any other, and the result's policy is the
      visit distribution with those extra visits taken back where they were only forced (`pruned_visits`),
      so that root noise widens the search without teaching its noise to the policy. 0: none (AlphaZero).
    """

    simulations: int = 800
    time_limit: float | None = None
    selection: Literal["uct", "puct"] = "uct"
    uct_c: float = 2.0 * math.sqrt(2.0)
    c_puct: float = 1.25
    c_puct_base: float | None = 19652.0
    unvisited_value: float = 0.0
    rollouts: int = 1
    batch_size: int = 1
    solver: bool = True
    root_noise: bool = False
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    temperature: float = 0.0
    rave: bool = False
    rave_equivalence: float = 1000.0
    expansion_threshold: int = 1
    forced_playouts: float = 0.0

    def __post_init__(self) -> None:
        if self.selection not in ("uct", "puct"):
            raise ValueError(f"selection must be 'uct' or 'puct', got {self.selection!r}")
        for name in ("simulations", "rollouts", "batch_size", "expansion_threshold"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("uct_c", "c_puct", "temperature"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.c_puct_base is not None and self.c_puct_base <= 0:
            raise ValueError(f"c_puct_base must be positive or None, got {self.c_puct_base}")
        if not -1.0 <= self.unvisited_value <= 1.0:
            raise ValueError(f"unvisited_value must be in [-1, 1], got {self.unvisited_value}")
        if self.dirichlet_alpha <= 0 or not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError("dirichlet_alpha must be positive and dirichlet_epsilon in [0, 1]")
        if self.rave_equivalence <= 0:
            raise ValueError(f"rave_equivalence must be positive, got {self.rave_equivalence}")
        if self.forced_playouts < 0:
            raise ValueError(f"forced_playouts must be non-negative, got {self.forced_playouts}")
        if self.forced_playouts > 0 and self.selection != "puct":
            raise ValueError("forced_playouts needs selection 'puct' (they follow PUCT's priors)")

    def params(self) -> np.ndarray:
        """The float64 parameter slots read by the compiled tree operations."""
        params = np.zeros(NUM_PARAMS, dtype=np.float64)
        puct = self.selection == "puct"
        params[P_C] = self.c_puct if puct else self.uct_c
        params[P_C_BASE] = self.c_puct_base or 0.0
        params[P_PUCT] = puct
        params[P_SOLVER] = self.solver
        params[P_UNVISITED] = self.unvisited_value
        params[P_ROLLOUTS] = self.rollouts
        params[P_RAVE] = self.rave_equivalence if self.rave else 0.0
        params[P_EXPANSION] = self.expansion_threshold
        params[P_FORCED] = self.forced_playouts
        return params


@dataclass(frozen=True, kw_only=True)
class GumbelConfig:
    """Knobs of `Gumbel` and `MultiTreeGumbel` (defaults: Danihelka et al. 2022 and mctx).

    * ``simulations`` -- per search; the method is built for small budgets, 16 by default;
    * ``max_num_considered_actions`` -- ``m``, root actions sampled without replacement by Gumbel-top-k
      (16: mctx's ``gumbel_muzero_policy`` default);
    * ``c_visit``, ``c_scale`` -- ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``: ``c_visit = 50``
      and ``c_scale = 1`` as in the paper; mctx's ``qtransform_completed_by_mix_value`` defaults to
      ``maxvisit_init = 50`` and ``value_scale = 0.1``, a softer improved policy;
    * ``rescale_values`` -- min-max normalise the completed Q-values over a node's children to [0, 1]
      before ``sigma`` (mctx's default; the paper's Q-values lie in [0, 1]);
    * ``gumbel_scale`` -- multiplies the Gumbel noise: 1 samples actions as the paper does (self-play),
      0 makes the search deterministic (mctx suggests it for evaluation in perfect-information games).
    """

    simulations: int = 16
    max_num_considered_actions: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    rescale_values: bool = True
    gumbel_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("simulations", "max_num_considered_actions"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("c_visit", "c_scale", "gumbel_scale"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)}")

    def params(self) -> np.ndarray:
        """The float64 parameter slots read by the compiled operations."""
        params = np.zeros(NUM_GUMBEL_PARAMS)
        params[G_C_VISIT], params[G_C_SCALE] = self.c_visit, self.c_scale
        params[G_RESCALE], params[G_GUMBEL_SCALE] = self.rescale_values, self.gumbel_scale
        return params
