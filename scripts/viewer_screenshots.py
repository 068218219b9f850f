"""Screenshots of each viewer page for docs/viewer.md, taken by the browser the tests use.

Builds the tests' sample workspace in a temporary folder, serves the viewer on a loopback port,
opens it in Debian's headless Chromium through Playwright, and writes one PNG per view to
docs/img/viewer-<view>.png (quantised with Pillow, which the dev extra has). Prints a
JSON line per image (path, bytes).

    .venv/bin/python scripts/viewer_screenshots.py [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402
from tests.viewer.sample import build  # noqa: E402

from reverie.viewer import serve_viewer  # noqa: E402

OUT = ROOT / "docs" / "img"
VIEWS = {
    "overview": "/",
    "timeline": "/timeline",
    "commit": "/commit/HEAD~1?view=split",
    "search": "/search?q=tea",
    "session": "/session?key=telegram:zoe",
    "edit": "/edit?path=USER.md",
}


def shoot(page: Page, name: str) -> dict[str, object]:
    target = OUT / f"viewer-{name}.png"
    if name == "overview":
        page.locator("details.line", has_text="Project Lark ships").locator("summary").click()
    page.screenshot(path=str(target), full_page=True)
    # 64 colours keep text crisp on these flat pages and the PNGs a third of the size.
    Image.open(target).convert("RGB").quantize(colors=64).save(target, optimize=True)
    return {"image": str(target.relative_to(ROOT)), "bytes": target.stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        engine = build(Path(tmp) / "ws")
        with (
            serve_viewer(engine, "screenshots", author="Ada <ada@example.org>") as viewer,
            sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(executable_path=args.chromium)
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            page.goto(viewer.login_url)
            for name, path in VIEWS.items():
                page.goto(viewer.url + path)
                print(json.dumps(shoot(page, name)))
            browser.close()
        engine.close()


if __name__ == "__main__":
    main()
