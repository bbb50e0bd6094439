"""Screenshots of the run report and the review page for the README, taken with headless chromium.

    python docs/screenshots.py RUN.db [--gold GOLD.jsonl] [--out docs/]

Works on a copy of the store (the review page's task is prepared and one sentence rated there, so
RUN.db is left as it was). Needs Debian's chromium and chromium-driver, and Selenium.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path


def _driver(width: int, height: int):  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or "chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", type=Path)
    parser.add_argument("--gold", type=Path, action="append", default=[])
    parser.add_argument("--frames", type=Path, help="a FrameNet release: frame definitions on the review page")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args()

    import uvicorn
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from paraspan.corpus.formats import guess_format, read_corpus
    from paraspan.pipeline.store import RunStore
    from paraspan.report.render import build_report
    from paraspan.review.app import create_app
    from paraspan.review.tasks import GoldPool, ReviewSettings, prepare_tasks

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / args.store.name
        with RunStore.open(args.store, readonly=True) as source:
            source.conn.execute(f"VACUUM INTO '{store}'")  # a consistent copy, WAL included
        report = Path(tmp) / "report.html"
        build_report(store, report)
        driver = _driver(1360, 1500)
        try:
            driver.get(report.as_uri())
            time.sleep(0.5)
            driver.save_screenshot(str(args.out / "report-summary.png"))
            driver.execute_script("document.getElementById('table').scrollIntoView()")
            driver.find_element(By.ID, "outputs").find_element(By.CSS_SELECTOR, "th:nth-child(9)").click()
            time.sleep(0.3)
            driver.set_window_size(1360, 900)
            driver.execute_script("document.getElementById('table').scrollIntoView()")
            driver.save_screenshot(str(args.out / "report-table.png"))
        finally:
            driver.quit()

        with RunStore.open(store) as run:
            pool = GoldPool()
            pool.add(run.iter_inputs())
            for path in args.gold:
                pool.add(read_corpus(path, guess_format(path) or "jsonl"))
            definitions = {}
            if args.frames is not None:
                from paraspan.corpus.frame_index import FrameIndex

                definitions = {f.name: f.definition for f in FrameIndex.load(args.frames)}
            prepare_tasks(run, pool, definitions=definitions)
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(store, ReviewSettings()), host="127.0.0.1", port=port,
                                               log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        driver = _driver(1100, 1000)
        try:
            driver.get(f"http://127.0.0.1:{port}/")
            driver.find_element(By.ID, "annotator").send_keys("alice")
            driver.find_element(By.ID, "start").click()
            time.sleep(1.0)
            sliders = driver.find_elements(By.CSS_SELECTOR, ".cand input[type=range]")
            sliders[0].send_keys(Keys.SHIFT + Keys.ARROW_RIGHT * 3 + Keys.SHIFT)
            if len(sliders) > 1:
                sliders[1].send_keys(Keys.SHIFT + Keys.ARROW_LEFT * 3 + Keys.SHIFT)
            time.sleep(0.3)
            driver.save_screenshot(str(args.out / "review.png"))
        finally:
            driver.quit()
            server.should_exit = True
            thread.join(timeout=10)
    print(f"wrote {args.out}/report-summary.png, report-table.png, review.png")


if __name__ == "__main__":
    main()
