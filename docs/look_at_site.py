"""Builds the documentation site and screenshots pages of it in headless Chromium, to look at them:
``python docs/look_at_site.py [--out DIR] [PAGE ...]`` (pages by path in the site, default the landing page,
a guide page and an API page). Needs the ``docs`` extra and a ``chromium`` on the PATH
(``apt-get install chromium``)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("", "guide/agents/", "api/search/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", default=list(PAGES), help="paths in the site (default: three pages)")
    parser.add_argument("--out", default="site-shots", help="where the screenshots go (default site-shots/)")
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("no chromium on the PATH: apt-get install chromium", file=sys.stderr)
        return 2
    site, out = Path(tempfile.mkdtemp()), Path(args.out)
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)], cwd=ROOT, check=True
    )
    out.mkdir(parents=True, exist_ok=True)
    for page in args.pages:
        shot = out / f"{page.strip('/').replace('/', '-') or 'index'}.png"
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1280,1400",
                f"--screenshot={shot.resolve()}",
                (site / page / "index.html").as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        print(f"{page or '/'}: {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
