"""Headless Chromium through Selenium, for tests/render/test_html_browser.py and the screenshot that
tests/regenerate.py --screenshot keeps in outputs/.

Debian's packages: chromium (/usr/bin/chromium) and chromium-driver (/usr/bin/chromedriver);
.ci/run installs them when missing. The flags keep Chromium off the network (without them it
hangs on a closed network, waiting for its own services), and page scripts are off: the page
must read without them."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1")


def missing() -> str | None:
    """Why the browser cannot run here (what to install), or None."""
    wanted = []
    if not Path(CHROMIUM).exists():
        wanted.append(f"chromium ({CHROMIUM})")
    if not Path(CHROMEDRIVER).exists():
        wanted.append(f"chromium-driver ({CHROMEDRIVER})")
    try:
        import selenium  # noqa: F401
    except ImportError:
        wanted.append("selenium (pip install -e '.[test]')")
    if not wanted:
        return None
    return ("needs " + " and ".join(wanted) + ": apt-get install -y chromium chromium-driver"
            if any("chromium" in w for w in wanted) else "needs " + ", ".join(wanted))


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A WebDriver session of headless Chromium with page scripts disabled, and a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="evidence-plan-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    options.add_argument(f"--user-data-dir={profile}")
    options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(page: Path, target: Path, hover: str | None = None, width: int = 1100, height: int = 900) -> None:
    """The top of ``page`` (its header and graph) as a PNG, with the box of item ``hover``
    hovered (showing its evidence and proof)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    with chromium(width, height) as driver:
        driver.get(page.resolve().as_uri())
        if hover is not None:
            box = driver.find_element(By.CSS_SELECTOR, f'.canvas a.box[data-id="{hover}"]')
            ActionChains(driver).move_to_element(box).perform()
        driver.save_screenshot(str(target))
