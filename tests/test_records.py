"""The manifest's records and the tables rendered from them: the documents agree with the manifest, and
the figures derived from its counts are the ones the arena reported when the matches were played."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rlgames.records import ManifestError, Match, Metric, load_manifest
from rlgames.records.__main__ import main
from rlgames.records.tables import (
    DOCUMENTS,
    RECORDS_PAGE,
    anchor,
    answer_table,
    elo_text,
    figure_text,
    reference_table,
    regenerate,
    score_text,
    sync,
)

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = load_manifest(ROOT / "checkpoints" / "manifest.json")


def test_no_document_drifted_from_the_manifest():
    """Fails when a table was edited by hand or the manifest changed without `python -m rlgames.records`."""
    assert sync(ROOT, MANIFEST, check=True) == []


def test_every_shipped_file_has_a_record_and_every_record_a_file():
    shipped = [path.name for pattern in ("*.pt", "*.npz") for path in (ROOT / "checkpoints").glob(pattern)]
    assert set(MANIFEST.files) == set(shipped)  # networks, and learned rollout policies' weights


def test_each_games_and_positions_command_names_its_checkpoint():
    """Speed is measured on the architecture; games and positions on the file itself."""
    for checkpoint in MANIFEST.checkpoints:
        for measurement in checkpoint.measurements:
            if not isinstance(measurement, Metric):
                assert f"checkpoints/{checkpoint.file}" in measurement.provenance.command, (
                    checkpoint.file,
                    measurement.id,
                )


@pytest.mark.parametrize(
    ("file", "id", "score", "elo"),
    [
        # The scores `rlgames compare` printed when the matches were played; the intervals from the
        # normal approximation it then used differ by 0.1 point at most (84.2% [80.7%, 87.8%] over the
        # games; tighter over the pairs recorded since).
        ("chess.nnue.pt", "equal-time", "63.0% [58.8%, 67.2%]", "+92 [+62, +124]"),
        ("connect_four.nnue.pt", "equal-time", "61.5% [57.0%, 66.0%]", "+81 [+49, +115]"),
        ("othello.nnue.pt", "depth-6", "84.2% [81.0%, 87.5%]", "+291 [+251, +338]"),
    ],
)
def test_figures_derived_from_the_counts_are_the_reported_ones(file, id, score, elo):
    match = MANIFEST[file].measurement(id)
    assert isinstance(match, Match) and (match.pairs != ()) == (file == "othello.nnue.pt")
    assert (score_text(match), elo_text(match)) == (score, elo)


def test_every_link_of_a_table_reaches_a_record():
    page = (ROOT / RECORDS_PAGE).read_text()
    for checkpoint in MANIFEST.checkpoints:
        for measurement in checkpoint.measurements:
            assert f'<a id="{anchor(checkpoint, measurement)}"></a>' in page
    readme = (ROOT / "README.md").read_text()
    answer = [c for c in MANIFEST.checkpoints if c.answers]
    assert {c.game for c in answer} == {"connect_four", "othello", "chess", "backgammon", "checkers", "go"}
    for checkpoint in answer:
        questions = ("equal depth", "equal simulations", "equal time")
        for match in [m for question in questions for m in checkpoint.matches(question)]:
            assert f"docs/records.md#{anchor(checkpoint, match)})" in readme


def test_a_region_is_rendered_and_the_text_around_it_kept():
    text = "before <!-- generated: figure chess.nnue.pt equal-time -->stale<!-- end generated --> after"
    assert regenerate(text, MANIFEST, "README.md") == (
        "before <!-- generated: figure chess.nnue.pt equal-time -->63.0% [58.8%, 67.2%]<!-- end generated --> after"
    )
    with pytest.raises(ValueError, match="unknown generated region"):
        regenerate("<!-- generated: nonsense -->x<!-- end generated -->", MANIFEST, "README.md")
    with pytest.raises(KeyError, match="no measurement"):
        regenerate("<!-- generated: figure chess.nnue.pt nonsense --><!-- end generated -->", MANIFEST, "README.md")


def test_check_reports_a_drifted_copy_and_the_rewrite_mends_it(tmp_path, capsys):
    for document in DOCUMENTS + (RECORDS_PAGE, "checkpoints/manifest.json"):
        (tmp_path / document).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / document, tmp_path / document)
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("63.0% [58.8%, 67.2%]", "64.0% [58.8%, 67.2%]"))
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert "README.md: drifted from the manifest" in capsys.readouterr().out
    assert main(["--root", str(tmp_path)]) == 0
    assert readme.read_text() == (ROOT / "README.md").read_text()
    assert main(["--check", "--root", str(tmp_path)]) == 0


def _manifest_with(tmp_path: Path, change) -> Path:
    data = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())
    change(data["checkpoints"]["chess.nnue.pt"]["measurements"][0])
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.pop("wins"), "missing 1 required positional argument: 'wins'"),
        (lambda m: m.update(score=0.7), "unknown field 'score'"),
        (lambda m: m.update(kind="guess"), "kind must be one of match, accuracy, metric, reference"),
        (lambda m: m.pop("depth"), "an equal-depth match, and only one, gives its depth"),
        (lambda m: m.update(question="faster"), "question must be one of"),
    ],
)
def test_a_record_off_the_schema_is_refused_naming_it(tmp_path, change, message):
    with pytest.raises(ManifestError, match="chess.nnue.pt measurement 'depth-2'") as error:
        load_manifest(_manifest_with(tmp_path, change))
    assert message in str(error.value)


def test_a_reference_record_shows_the_difference_through_its_reference(tmp_path):
    """Both sides' counts against one reference: the difference is derived from them, and the answer table
    shows the difference through every reference of a budget."""
    data = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())
    base = {
        "kind": "reference",
        "budget": "0.1 s/move",
        "learned_spec": "alphabeta(time=0.1, model=checkpoints/chess.nnue.pt)",
        "hand_crafted_spec": "alphabeta(time=0.1, eval=heuristic)",
        "openings": 50,
        "command": "rlgames compare chess --learned checkpoints/chess.nnue.pt --reference uci:a --reference uci:b",
        "commit": "0000000",
        "date": "2026-11-28",
    }
    data["checkpoints"]["chess.nnue.pt"]["measurements"] = [
        dict(base, id="ref-a", reference="uci:a", learned=[61, 0, 39], hand_crafted=[55, 1, 44]),
        dict(base, id="ref-b", reference="uci:b", learned=[25, 0, 75], hand_crafted=[26, 1, 73]),
    ]
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    manifest = load_manifest(path)
    chess = manifest["chess.nnue.pt"]
    assert figure_text(chess.measurement("ref-a")) == "+39 [-61, +140] Elo"  # as stats.through_references gives it
    assert "+16 [-59, +92] Elo](docs/records.md#chess-nnue-ref-a) at 0.1 s/move (2 references)" in answer_table(
        manifest, "README.md"
    )
    assert "**+16 [-59, +92] Elo**" in reference_table(chess, "docs/guide/the-answer.md")
    data["checkpoints"]["chess.nnue.pt"]["measurements"][1]["network"] = "0" * 64  # played by an earlier file
    path.write_text(json.dumps(data))
    assert "at 0.1 s/move (2 references, measured with an earlier network)" in answer_table(
        load_manifest(path), "README.md"
    )
    data["checkpoints"]["chess.nnue.pt"]["measurements"][1]["hand_crafted"] = [26, 1, 72]
    path.write_text(json.dumps(data))
    with pytest.raises(ManifestError, match="'ref-b': learned and hand_crafted are wins, draws, losses over the same"):
        load_manifest(path)
