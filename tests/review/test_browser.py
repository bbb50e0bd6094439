"""End to end in a real headless browser: Debian's chromium driven by Selenium and chromium-driver.

The test starts the browser itself (``--headless --no-sandbox --disable-gpu
--disable-background-networking``) and skips, saying why, when chromium, its driver or Selenium
is missing (``make test`` installs them where it can).
"""

from __future__ import annotations

import json

from paraspan.pipeline.store import RunStore


def test_rate_a_task_in_the_browser(browser, live_server, review_store):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 20)
    browser.get(live_server.url + "/")
    name = browser.find_element(By.ID, "annotator")
    name.send_keys("browser-tester")
    browser.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, ".cand input[type=range]")))
    first_task = browser.execute_script("return document.querySelector('#label').textContent")
    assert first_task
    sliders = browser.find_elements(By.CSS_SELECTOR, ".cand input[type=range]")
    assert len(sliders) == 3
    submit = browser.find_element(By.ID, "submit")
    assert not submit.is_enabled()  # nothing rated yet
    # move each slider with the keyboard: 50 + 2×10 + 3×1 = 73; then 50 − 10 = 40; then End = 100
    assert browser.switch_to.active_element == sliders[0]  # the first sentence has the focus
    sliders[0].send_keys(Keys.SHIFT + Keys.ARROW_RIGHT + Keys.ARROW_RIGHT + Keys.SHIFT + Keys.ARROW_RIGHT * 3)
    sliders[0].send_keys("2")  # shortcut: the second sentence
    active = browser.switch_to.active_element
    assert active == sliders[1]
    active.send_keys(Keys.SHIFT + Keys.ARROW_LEFT + Keys.SHIFT)
    sliders[2].send_keys(Keys.END)
    values = [s.get_attribute("value") for s in sliders]
    assert values == ["73", "40", "100"]
    assert submit.is_enabled()
    slots = [browser.execute_script("return arguments[0].closest('.cand').dataset.slot", s) for s in sliders]
    total = browser.execute_script(
        "return fetch('/api/progress?annotator=browser-tester').then(r => r.json())")["tasks"]
    assert total == 16
    submit.click()
    wait.until(lambda d: d.execute_script(
        "return document.querySelector('#progress').textContent").startswith("you: 1 done"))
    with RunStore.open(review_store, readonly=True) as store:
        [judgment] = store.judgments()
        responses = dict(store.conn.execute(
            "SELECT item_id, score FROM review_responses WHERE annotator = 'browser-tester'"))
        items = store.conn.execute("SELECT items FROM review_tasks WHERE output_id = ?",
                                   (judgment.output_id,)).fetchone()[0]
    by_slot = {i["slot"]: i for i in json.loads(items)}
    expected = dict(zip(slots, (73.0, 40.0, 100.0), strict=True))
    system_slot = next(s for s, i in by_slot.items() if i["kind"] == "system")
    assert judgment.annotator == "browser-tester" and judgment.score == expected[system_slot]
    assert responses == {by_slot[s]["ref"]: expected[s] for s in slots}
    # the next task is on screen, its sliders untouched
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('.cand.untouched').length") == 3)


def test_judge_a_whole_output_in_the_browser(browser, live_output_server, review_output_store):
    """Output mode: source and output with labelled spans; W, then M prefills the note's kind."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 20)
    browser.get(live_output_server.url + "/")
    wait.until(ec.visibility_of_element_located((By.ID, "intro-output")))
    browser.find_element(By.ID, "annotator").send_keys("browser-judge")
    browser.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.ID, "o-output")))
    assert browser.find_element(By.ID, "task").is_displayed() is False
    source_tags = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#o-source .tag")]
    output_tags = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#o-output .tag")]
    assert len(source_tags) >= 3 and len(output_tags) >= 3
    assert any(t.startswith(browser.find_element(By.ID, "o-label").text + " (") for t in output_tags)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#o-output-spans li")) == len(output_tags)
    submit = browser.find_element(By.ID, "o-submit")
    assert not submit.is_enabled()  # no verdict yet
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("w")
    assert browser.find_element(By.ID, "o-value").text == "0" and submit.is_enabled()
    body.send_keys("m")  # the kind, with the focus in the note after it
    note = browser.switch_to.active_element
    assert note.get_attribute("id") == "o-note" and note.get_attribute("value") == "meaning: "
    note.send_keys("the buyer became the seller")
    browser.find_element(By.CSS_SELECTOR, 'button.kind[data-kind="span"]').click()  # another kind: prefix replaced
    assert note.get_attribute("value") == "span: the buyer became the seller"
    note.send_keys(Keys.ENTER)
    wait.until(lambda d: d.execute_script(
        "return document.querySelector('#progress').textContent").startswith("you: 1 done"))
    with RunStore.open(review_output_store, readonly=True) as store:
        [judgment] = store.judgments()
    assert judgment.annotator == "browser-judge" and judgment.score == 0.0
    assert json.loads(judgment.note)["note"] == "span: the buyer became the seller"
    # the next output is on screen, with no verdict and an empty note
    wait.until(lambda d: d.find_element(By.ID, "o-value").text == "–")
    assert browser.find_element(By.ID, "o-note").get_attribute("value") == ""
    body.send_keys("c")
    body.send_keys(Keys.ENTER)
    wait.until(lambda d: d.execute_script(
        "return document.querySelector('#progress').textContent").startswith("you: 2 done"))
    with RunStore.open(review_output_store, readonly=True) as store:
        assert [j.score for j in store.judgments()] == [0.0, 100.0]
        assert "note" not in json.loads(store.judgments()[1].note)
