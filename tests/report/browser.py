"""Start Debian's chromium headless under Selenium for the browser tests (or skip, saying why)."""

from __future__ import annotations

import shutil

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
DRIVERS = ("chromedriver", "chromium-driver")


def chrome_driver(width: int = 1280, height: int = 1000):
    """A headless Chrome/Chromium WebDriver, or skip the calling test with the reason."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install selenium, or `make test`)")
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    if browser is None or driver is None:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver "
                    "(apt-get install chromium chromium-driver, or `make test` as root)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(flag)
    # an explicit driver path: Selenium Manager would otherwise try to download one
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)
