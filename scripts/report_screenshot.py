#!/usr/bin/env python3
"""Render the top of a quickstart report to a PNG with headless Chromium (the picture in the README and
docs/report.md):

    python scripts/report_screenshot.py runs/quickstart                # -> docs/img/quickstart_report.png
    python scripts/report_screenshot.py runs/quickstart --out shot.png --width 1280 --height 1000

FOLDER is a quickstart (or ``hcrbench run``) output folder; its report.html is written first when it is absent
(``hcrbench report``). Chromium is found as ``chromium``, ``chromium-browser``, ``google-chrome`` or ``chrome``
(``make test`` installs Debian's). Exit 2 with one line when the folder or Chromium is missing.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hcrbench.data.atomic import atomic_write_bytes

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "docs" / "img" / "quickstart_report.png"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium() -> str | None:
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def screenshot(html: Path, out: Path, width: int = 1280, height: int = 1000, binary: str | None = None) -> Path:
    """Write the top ``width`` x ``height`` pixels of ``html`` to ``out`` (atomically); returns ``out``."""
    binary = binary or chromium()
    if binary is None:
        raise FileNotFoundError(f"no Chromium found ({', '.join(BROWSERS)}); install it: sudo apt-get install "
                                "-y chromium")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hcrbench-shot-") as tmp:
        shot = Path(tmp) / "shot.png"
        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
               "--no-first-run", "--no-default-browser-check", f"--user-data-dir={tmp}/profile",
               f"--window-size={width},{height}", f"--screenshot={shot}", html.resolve().as_uri()]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
        if not shot.is_file() or shot.stat().st_size == 0:
            raise RuntimeError(f"{binary} wrote no screenshot of {html}")
        atomic_write_bytes(out, shot.read_bytes())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="a quickstart output folder (holding report.html, or its inputs)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the PNG to write (default: {DEFAULT_OUT})")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=1000)
    a = ap.parse_args(argv)
    html = a.folder / "report.html"
    if not a.folder.is_dir():
        print(f"report_screenshot: error: {a.folder}: not a folder", file=sys.stderr)
        return 2
    if not html.is_file():
        from hcrbench.report.document import write_report

        html = write_report(a.folder)["html"]
    try:
        out = screenshot(html, a.out, a.width, a.height)
    except (FileNotFoundError, RuntimeError) as e:
        print(f"report_screenshot: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} (top {a.width} x {a.height} px of {html})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
