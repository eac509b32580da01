"""Self-play throughput with a network: the search's overhead, and a comparison with alpha-zero-general.

Three loops use the same network (a checkpoint, by default the shipped connect four model):

* raw inference: the network's forward pass on batches of observations of random positions, no search,
  at batch 1 and at the batch self-play forms (``parallel_games * leaves_per_game`` leaves);
* rlgames self-play: `rlgames.train.alphazero.selfplay.play_games` with the preset's self-play settings, but PUCT at
  ``--simulations`` as the reference (many games stepped together, leaves evaluated in shared batches);
* the reference: alpha-zero-general's search as its ``MCTS.py`` runs it (Surag Nair's
  suragnair/alpha-zero-general): a tree kept in dicts keyed by the board (``Qsa``, ``Nsa``, ``Ns``,
  ``Ps``), a recursive descent per simulation that scans every action's PUCT score, one network call at
  batch 1 per new leaf, one game at a time, the dicts kept for the whole game. It is re-implemented here
  (`ReferenceMCTS`) over the rlgames state API, which is faster than alpha-zero-general's numpy boards,
  so the speed-up reported is conservative.

All times are the thread's CPU time (``time.thread_time``; torch runs on this thread with one thread),
so that other work on a shared machine does not skew the ratios; the reference's games and the raw
inference at the self-play batch are split around rlgames' iteration (half before, half after), so that
a slow spell hits all of them alike. Reported:

* ``search overhead``: self-play network evaluations per second / raw inference positions per second at
  the self-play batch (1.0 would be a search that costs nothing);
* ``speed-up``: self-play simulations per second / the reference's.

Only work really done is counted. rlgames' simulations are the sum of ``stats.nodes`` over every search
(`MultiTreeMCTS` counts the simulations it ran: a root proven by the MCTS-solver stops early, and
the visits kept from the previous move's tree are not counted again), not ``moves * --simulations``,
which the report shows beside it as "planned"; network evaluations are the positions sent to the network
(cache hits excluded). The reference runs every simulation it plans (no solver). The time of rlgames'
iteration also covers the preset's siblings (`rlgames.train.alphazero.selfplay.Siblings`: exact alpha-beta proofs, which
are no simulations and call no network), so they lower both of its rates; ``--no-siblings`` turns them
off. ``--runs N`` repeats the whole measurement and prints the median and range::

    python benchmarks/bench_selfplay.py --checkpoint checkpoints/connect_four.pt --preset connect_four_small --runs 5
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import rlgames.train.alphazero.selfplay
import torch
from rlgames.models import NetworkEvaluator, PolicyValueNet, load_network
from rlgames.train.alphazero.config import SelfPlayConfig, load_config
from rlgames.train.alphazero.selfplay import play_games

from rlgames.game import Game, State
from rlgames.search.result import SearchResult

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info, repeat_runs, spread

EPS = 1e-8  # alpha-zero-general's constant under the square root of an unvisited node


class ReferenceMCTS:
    """alpha-zero-general's MCTS: dict-keyed statistics, recursive descent, batch-1 network calls."""

    def __init__(self, game: Game, network: PolicyValueNet, simulations: int, c_puct: float = 1.0) -> None:
        self.game, self.network, self.simulations, self.c_puct = game, network, simulations, c_puct
        self.Qsa: dict[tuple, float] = {}
        self.Nsa: dict[tuple, int] = {}
        self.Ns: dict[tuple, int] = {}
        self.Ps: dict[tuple, np.ndarray] = {}
        self.Vs: dict[tuple, np.ndarray] = {}
        self.evaluations = 0

    def action_probabilities(self, state: State) -> np.ndarray:
        """The root's visit distribution after ``simulations`` more simulations (getActionProb, temp 1)."""
        for _ in range(self.simulations):
            self.search(state, state.current_player())
        s = state.compact
        counts = np.array([self.Nsa.get((s, a), 0) for a in range(self.game.num_actions)], dtype=np.float64)
        return counts / counts.sum()

    def search(self, state: State, player: int) -> float:
        """One simulation below ``state`` (``player`` to move); returns the value for the other player."""
        if state.is_terminal():
            return -state.returns()[player]
        s = state.compact
        if s not in self.Ps:
            return -self._expand(state, player)
        valid, prior, visits = self.Vs[s], self.Ps[s], self.Ns[s]
        best, best_action = -math.inf, -1
        for a in range(self.game.num_actions):
            if valid[a]:
                if (s, a) in self.Qsa:
                    u = self.Qsa[(s, a)] + self.c_puct * prior[a] * math.sqrt(visits) / (1 + self.Nsa[(s, a)])
                else:
                    u = self.c_puct * prior[a] * math.sqrt(visits + EPS)
                if u > best:
                    best, best_action = u, a
        a = best_action
        v = self.search(state.apply(a), 1 - player)
        if (s, a) in self.Qsa:
            self.Qsa[(s, a)] = (self.Nsa[(s, a)] * self.Qsa[(s, a)] + v) / (self.Nsa[(s, a)] + 1)
            self.Nsa[(s, a)] += 1
        else:
            self.Qsa[(s, a)], self.Nsa[(s, a)] = v, 1
        self.Ns[s] += 1
        return -v

    def _expand(self, state: State, player: int) -> float:
        """The leaf's network call at batch 1; stores its masked prior; returns its value for ``player``."""
        observation = torch.from_numpy(state.observation(player)[None])  # [1, *observation_shape]
        with torch.inference_mode():
            logits, value = self.network(
                observation
            )  # [1, A], [1] (inference mode: a little faster than alpha-zero-general's no_grad)
        self.evaluations += 1
        valid = state.legal_action_mask()
        prior = torch.softmax(logits[0], 0).numpy() * valid
        self.Ps[state.compact] = prior / prior.sum()
        self.Vs[state.compact], self.Ns[state.compact] = valid, 0
        return float(value[0])


def reference_selfplay(
    game: Game, network: PolicyValueNet, simulations: int, games: int, rng: np.random.Generator
) -> dict[str, float]:
    """alpha-zero-general's executeEpisode, ``games`` times: a fresh tree per game, moves drawn from the
    visit distribution."""
    positions = evaluations = 0
    start = time.thread_time()
    for _ in range(games):
        search = ReferenceMCTS(game, network, simulations)
        state = game.new_initial_state()
        while not state.is_terminal():
            probabilities = search.action_probabilities(state)
            state = state.apply(int(rng.choice(len(probabilities), p=probabilities)))
            positions += 1
        evaluations += search.evaluations
    return rates(positions, positions * simulations, evaluations, time.thread_time() - start)


def rlgames_selfplay(game: Game, network: PolicyValueNet, config: SelfPlayConfig, seed: int) -> dict[str, float]:
    """One iteration of rlgames self-play; simulations are those the searches report having run."""
    evaluator = NetworkEvaluator(network, game, batch_size=1024)
    play_games(game, evaluator, dataclasses.replace(config, games_per_iteration=2, parallel_games=2), seed)  # compiles
    evaluator.clear_cache()
    with counting_simulations() as ran:
        start = time.thread_time()
        _, stats = play_games(game, evaluator, config, seed)
        seconds = time.thread_time() - start
    report = rates(stats.positions, ran[0], stats.evaluations, seconds)
    report["simulations"] = ran[0]
    report["planned_simulations"] = stats.positions * config.simulations
    report["siblings"] = stats.siblings
    return report


@contextlib.contextmanager
def counting_simulations() -> Iterator[list[int]]:
    """While active, every search `rlgames.train.alphazero.selfplay.play_games` makes adds the simulations its results
    report (``stats.nodes``) to the yielded counter ``[total]``."""
    original, ran = rlgames.train.alphazero.selfplay.make_search, [0]

    def make_counting_search(*args: Any, **kwargs: Any) -> Any:
        search = original(*args, **kwargs)
        search_many = search.search_many

        def counted(states: Sequence[State]) -> list[SearchResult]:
            results = search_many(states)
            ran[0] += sum(result.stats.nodes for result in results)
            return results

        search.search_many = counted  # the instance keeps its class: play_games still sees a MultiTreeMCTS
        return search

    rlgames.train.alphazero.selfplay.make_search = make_counting_search
    try:
        yield ran
    finally:
        rlgames.train.alphazero.selfplay.make_search = original


def raw_inference(
    game: Game, network: PolicyValueNet, batch: int, seconds: float, rng: np.random.Generator
) -> dict[str, float]:
    """Positions per second of the bare forward pass on batches of ``batch`` random positions."""
    observations = torch.from_numpy(np.stack([random_state(game, rng).observation() for _ in range(batch)]))
    with torch.inference_mode():
        network(observations)  # warm-up
        calls, start = 0, time.thread_time()
        while time.thread_time() - start < seconds:
            network(observations)
            calls += 1
    elapsed = time.thread_time() - start
    return {"batch": batch, "positions": calls * batch, "seconds": elapsed, "positions_per_s": calls * batch / elapsed}


def random_state(game: Game, rng: np.random.Generator) -> State:
    """A non-terminal position a few random moves from the start."""
    while True:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 20))):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            return state


def rates(positions: int, simulations: int, evaluations: int, seconds: float) -> dict[str, float]:
    return {
        "positions": positions,
        "seconds": seconds,
        "positions_per_s": positions / seconds,
        "simulations_per_s": simulations / seconds,
        "evaluations_per_s": evaluations / seconds,
    }


def run(
    checkpoint: str,
    preset: str,
    simulations: int,
    reference_games: int,
    seconds: float,
    seed: int,
    siblings: bool = True,
) -> dict[str, Any]:
    torch.set_num_threads(1)
    network, info = load_network(checkpoint)
    game = info.load_game()
    # PUCT at the same simulation count as the reference, which is an AlphaZero PUCT search
    config = dataclasses.replace(load_config(preset).selfplay, search="puct", simulations=simulations)
    if not siblings:
        config = dataclasses.replace(config, sibling_fraction=0.0)
    rng = np.random.default_rng(seed)
    self_play_batch = config.parallel_games * config.leaves_per_game
    report: dict[str, Any] = {
        "checkpoint": checkpoint,
        "network": info.network.describe(),
        "preset": preset,
        "selfplay": dataclasses.asdict(config),
    }
    raw = [
        raw_inference(game, network, 1, seconds, rng),
        raw_inference(game, network, self_play_batch, seconds / 2, rng),
    ]
    parts = [reference_selfplay(game, network, config.simulations, (reference_games + 1) // 2, rng)]
    report["rlgames"] = rlgames_selfplay(game, network, config, seed)
    if reference_games // 2:
        parts.append(reference_selfplay(game, network, config.simulations, reference_games // 2, rng))
    after = raw_inference(game, network, self_play_batch, seconds / 2, rng)
    positions, elapsed = raw[1]["positions"] + after["positions"], raw[1]["seconds"] + after["seconds"]
    raw[1] = {
        "batch": self_play_batch,
        "positions": positions,
        "seconds": elapsed,
        "positions_per_s": positions / elapsed,
    }
    report["raw"] = raw
    report["reference"] = combine(*parts)
    report["search_overhead"] = report["rlgames"]["evaluations_per_s"] / report["raw"][1]["positions_per_s"]
    report["speedup"] = report["rlgames"]["simulations_per_s"] / report["reference"]["simulations_per_s"]
    return report


def combine(*parts: dict[str, float]) -> dict[str, float]:
    """The rates of several timed parts taken together."""
    seconds = sum(p["seconds"] for p in parts)
    return rates(
        sum(p["positions"] for p in parts),
        round(sum(p["simulations_per_s"] * p["seconds"] for p in parts)),
        round(sum(p["evaluations_per_s"] * p["seconds"] for p in parts)),
        seconds,
    )


def markdown(report: dict[str, Any]) -> str:
    raw1, raw_batch = report["raw"]
    ours, ref = report["rlgames"], report["reference"]
    ran = ours["simulations"]
    lines = [
        f"network {report['network']}, self-play preset {report['preset']} "
        f"({report['selfplay']['simulations']} simulations per move)",
        "",
        "| loop | network evals/s | simulations/s | positions (moves)/s |",
        "|---|---:|---:|---:|",
        f"| raw inference, batch 1 | {raw1['positions_per_s']:,.0f} | | |",
        f"| raw inference, batch {raw_batch['batch']} | {raw_batch['positions_per_s']:,.0f} | | |",
        f"| rlgames self-play | {ours['evaluations_per_s']:,.0f} | {ours['simulations_per_s']:,.0f} "
        f"| {ours['positions_per_s']:,.1f} |",
        f"| alpha-zero-general-style reference | {ref['evaluations_per_s']:,.0f} | {ref['simulations_per_s']:,.0f} "
        f"| {ref['positions_per_s']:,.1f} |",
        "",
        f"rlgames simulations run: {ran:,.0f} of {ours['planned_simulations']:,} planned "
        f"({ran / ours['planned_simulations']:.1%}; {ours['positions']:,} moves, {ours['siblings']:,} siblings)",
        f"search overhead: self-play evaluations/s are {report['search_overhead']:.0%} of raw inference at batch "
        f"{raw_batch['batch']}",
        f"speed-up over the reference: {report['speedup']:.1f}x simulations/s",
    ]
    return "\n".join(lines)


def summary(reports: list[dict[str, Any]]) -> str:
    """Median and range over runs of the headline figures."""
    return "\n".join(
        [
            f"over {len(reports)} runs:",
            f"  rlgames self-play simulations/s: "
            f"{spread([r['rlgames']['simulations_per_s'] for r in reports], ',.0f')}",
            f"  reference simulations/s:         "
            f"{spread([r['reference']['simulations_per_s'] for r in reports], ',.0f')}",
            f"  speed-up:                        {spread([r['speedup'] for r in reports], '.2f')}",
            f"  self-play network evals/s:       "
            f"{spread([r['rlgames']['evaluations_per_s'] for r in reports], ',.0f')}",
            f"  raw inference at batch {reports[0]['raw'][1]['batch']}:      "
            f"{spread([r['raw'][1]['positions_per_s'] for r in reports], ',.0f')}",
            f"  search overhead:                 {spread([r['search_overhead'] for r in reports], '.3f')}",
        ]
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="checkpoints/connect_four.pt")
    parser.add_argument(
        "--preset",
        default="connect_four_small",
        help="the training preset whose self-play settings to use (default connect_four_small)",
    )
    parser.add_argument(
        "--simulations", type=int, default=50, help="simulations per move of both searches (default 50)"
    )
    parser.add_argument(
        "--reference-games",
        type=int,
        default=4,
        help="games of the reference loop, half before and half after rlgames' iteration (default 4)",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per raw inference measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-siblings",
        action="store_true",
        help="turn the preset's siblings off (their proofs are work besides the search)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; prints the median and range (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)

    def measure(index: int) -> dict[str, Any]:
        return run(
            args.checkpoint,
            args.preset,
            args.simulations,
            args.reference_games,
            args.seconds,
            args.seed,
            siblings=not args.no_siblings,
        )

    reports = repeat_runs(args.runs, measure, markdown, summary)
    if args.json:
        output = {"runs": reports, "machine": machine_info()}
        Path(args.json).write_text(json.dumps(output, indent=2) + "\n")


if __name__ == "__main__":
    main()
