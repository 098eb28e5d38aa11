"""The HTML page in a real browser: headless Chromium, page scripts disabled (tests/browser.py).
Every item's box is displayed with a size and no two boxes overlap, read from the page's own
rectangles; a box shows its evidence and proof while hovered or focused; and a screenshot is
taken. Skipped, saying what to install, where Chromium or its driver is missing."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, missing
from click.testing import CliRunner

from compiler.cli import cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None, reason=str(missing()))]


def generated(n: int = 200, width: int = 20, seed: int = 7) -> dict[str, Any]:
    """A plan of n items in waves of ``width``, each depending on 1-3 items of the wave before;
    the first ones done or doing, so that every colour shows."""
    rnd = random.Random(seed)
    items = []
    for k in range(n):
        w = k // width
        chosen = rnd.sample(range((w - 1) * width, w * width), rnd.randint(1, 3)) if w else []
        item: dict[str, Any] = {"id": f"task-{k:03d}", "change": f"Change {k} of the generated plan, at length",
                                "evidence": [f"src/module_{k % 17}.py:{k + 1}"],
                                "depends_on": sorted(f"task-{d:03d}" for d in chosen),
                                "proof": f"pytest tests/test_{k}.py"}
        if k < 30:
            item["status"] = "done"
        elif k < 36:
            item["status"] = "doing"
        items.append(item)
    return {"plan": "generated-200", "items": items}


WORD = "Unbroken" * 40  # 320 characters without a space


def long_plan() -> dict[str, Any]:
    """A blocked plan of long unbroken text everywhere a page shows plan text: a 300-character id
    (an error, so the issues table shows it), names, changes, evidence, proofs, reasons."""
    ident = "x" * 300
    return {"plan": WORD, "goal": WORD, "items": [
        {"id": ident, "change": WORD, "evidence": [f"{'p' * 200}.py:1"], "proof": f"true {WORD}"},
        {"id": "b", "change": WORD, "evidence": [f"src/{WORD}.py::{WORD}"], "depends_on": [ident, f"missing-{WORD}"],
         "proof": f"pytest {WORD}", "status": "dropped", "reason": WORD},
        {"id": f"c{'-long' * 20}", "change": "short", "evidence": ["a.py:1"], "depends_on": ["b"], "proof": "true"}]}


def compile_html(plan: str, out: Path, *extra: str) -> Path:
    result = CliRunner().invoke(cli, ["compile", plan, "-o", str(out), "--html", *extra])
    assert result.exit_code in (0, 1), result.output
    return out / "evidence-plan.html"


@pytest.fixture(scope="module")
def driver() -> Any:
    with chromium() as session:
        yield session


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[str]]]:
    """Each page, and the ids its boxes must have: the example's, a blocked plan's, 200 items'."""
    repo = Path(__file__).resolve().parents[2]
    tmp = tmp_path_factory.mktemp("pages")
    plan = tmp / "generated.json"
    plan.write_text(json.dumps(generated()), encoding="utf-8")
    blocked = compile_html(str(repo / "examples" / "blocked" / "plan.yaml"), tmp / "blocked")
    document = json.loads((repo / "outputs" / "evidence-plan.json").read_text(encoding="utf-8"))
    click = compile_html(str(repo / "examples" / "click-floatrange-nan" / "plan.yaml"), tmp / "click")
    clicked = json.loads((tmp / "click" / "evidence-plan.json").read_text(encoding="utf-8"))
    long = tmp / "long.json"
    long.write_text(json.dumps(long_plan()), encoding="utf-8")
    return {
        "example": (repo / "outputs" / "evidence-plan.html", [i["id"] for i in document["items"]]),
        "click": (click, [i["id"] for i in clicked["items"]]),
        "long": (compile_html(str(long), tmp / "long", "--no-verify-evidence"),
                 [i["id"] for i in long_plan()["items"]]),
        "blocked": (blocked, ["contract", "implementation", "rollout", "monitor", "changelog", "docs", "contract"]),
        "generated": (compile_html(str(plan), tmp / "generated", "--no-verify-evidence"),
                      [f"task-{k:03d}" for k in range(200)]),
    }


@pytest.mark.parametrize("name", ["example", "blocked", "generated", "click"])
def test_every_box_is_displayed_and_none_overlaps(name: str, driver: Any, pages: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page, ids = pages[name]
    driver.get(page.resolve().as_uri())
    assert driver.find_elements(By.TAG_NAME, "h1")[0].text  # the page loaded
    boxes = driver.find_elements(By.CSS_SELECTOR, ".canvas a.box")
    assert [b.get_attribute("data-id") for b in boxes] != []
    assert sorted(b.get_attribute("data-id") for b in boxes) == sorted(ids)
    rects = []
    for box in boxes:
        rect = box.rect  # the page's own rectangle: no page script needed
        assert box.is_displayed() and rect["width"] > 50 and rect["height"] > 20, (box.get_attribute("data-id"), rect)
        rects.append(rect)
    for a, b in combinations(rects, 2):
        apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                 or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
        assert apart, (a, b)
    shot = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(shot)) and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_hovering_or_focusing_a_box_shows_its_evidence_and_proof(driver: Any, repo: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get((repo / "outputs" / "evidence-plan.html").resolve().as_uri())
    box = driver.find_element(By.CSS_SELECTOR, '.canvas a.box[data-id="implementation"]')
    pop = box.find_element(By.CLASS_NAME, "pop")
    assert not pop.is_displayed()
    ActionChains(driver).move_to_element(box).perform()
    assert pop.is_displayed()
    assert "app/accounts.py" in pop.text and "python3 -m unittest" in pop.text
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()  # away from it
    assert not pop.is_displayed()
    # Focus by the keyboard: Tab from the top of the page reaches the first box.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = driver.switch_to.active_element
    assert focused.get_attribute("data-id") == "contract"
    assert focused.find_element(By.CLASS_NAME, "pop").is_displayed()


def test_page_scripts_are_off_in_this_browser(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = tmp_path / "script.html"
    page.write_text('<p id="p">off</p><script>document.getElementById("p").textContent = "on"</script>',
                    encoding="utf-8")
    driver.get(page.as_uri())
    assert driver.find_element(By.ID, "p").text == "off"  # so the checks above hold without scripts


@pytest.mark.parametrize("name", ["example", "click", "long", "blocked", "generated"])
def test_no_page_scrolls_sideways_in_a_window_1280_pixels_wide(name: str, driver: Any, pages: Any) -> None:
    """The click example's page ran 286 pixels past the window (its graph, 1,534 wide, drawn on the
    page), a 300-character id widened the issues table to 3,980: a graph wider than FITS scrolls
    in its own frame, and long text wraps (a plan's `where` is cut, whole in its title)."""
    from selenium.webdriver.common.by import By

    page, _ = pages[name]
    driver.get(page.resolve().as_uri())
    # WebDriver's script runs with page scripts off (test_page_scripts_are_off_in_this_browser)
    width, window = driver.execute_script("return [document.scrollingElement.scrollWidth, window.innerWidth]")
    print(f"{name}: {width} pixels wide in a window of {window}")
    assert window == 1280 and width <= window
    # and with the pop-up of the box furthest right (and lowest) shown, which may reach past the graph
    boxes = driver.find_elements(By.CSS_SELECTOR, ".canvas a.box")
    last = max(boxes, key=lambda b: (b.rect["x"], b.rect["y"]))
    driver.execute_script("arguments[0].focus()", last)
    assert last.find_element(By.CLASS_NAME, "pop").is_displayed()
    assert driver.execute_script("return document.scrollingElement.scrollWidth") <= window


@pytest.mark.parametrize("name", ["example", "click", "generated"])
def test_tab_follows_the_boxes_as_drawn(name: str, driver: Any, pages: Any) -> None:
    """Tab goes from box to box in the order they are drawn: the waves left to right, each top
    down (the boxes are placed by the barycenter sweeps, not in the plan's order)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page, _ = pages[name]
    driver.get(page.resolve().as_uri())
    boxes = driver.find_elements(By.CSS_SELECTOR, ".canvas a.box")
    drawn = [b.get_attribute("id") for b in sorted(boxes, key=lambda b: (b.rect["x"], b.rect["y"]))]
    first = driver.find_element(By.ID, drawn[0])
    driver.execute_script("arguments[0].focus()", first)
    visited = [driver.switch_to.active_element.get_attribute("id")]
    for _ in drawn[1:]:
        driver.switch_to.active_element.send_keys(Keys.TAB)
        visited.append(driver.switch_to.active_element.get_attribute("id"))
    assert visited == drawn
    assert [b.get_attribute("id") for b in boxes] == drawn  # the document's order is the drawn one
