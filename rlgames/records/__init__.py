"""The shipped networks' records: the manifest (`rlgames.records.manifest`) and the tables rendered
from it (`rlgames.records.tables`); ``python -m rlgames.records`` rewrites the tables."""

from rlgames.records.manifest import Accuracy, Checkpoint, Manifest, ManifestError, Match, Metric, load_manifest

__all__ = ["Accuracy", "Checkpoint", "Manifest", "ManifestError", "Match", "Metric", "load_manifest"]
