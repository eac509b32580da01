"""``python -m rlgames.records [--check]``: renders the tables and the records page from the manifest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlgames.records.manifest import ManifestError, load_manifest
from rlgames.records.tables import sync


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlgames.records", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file drifted")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]), help="the checkout")
    args = parser.parse_args(argv)
    try:
        manifest = load_manifest(Path(args.root) / "checkpoints" / "manifest.json")
    except ManifestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    drifted = sync(args.root, manifest, check=args.check)
    for document in drifted:
        print(f"{document}: {'drifted from the manifest' if args.check else 'rewritten'}")
    return 1 if args.check and drifted else 0


if __name__ == "__main__":
    sys.exit(main())
