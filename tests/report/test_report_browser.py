"""The report's table in a real headless browser: rendering, search, filters, sorting, paging."""

from __future__ import annotations

from paraspan.report.render import build_report
from tests.report.store_fixture import make_store


def test_table_search_filter_sort(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    store = make_store(tmp_path / "run.db", judged={"t01~s0i1": [80], "t03~s0i1": [20]})
    build_report(store, tmp_path / "report.html")
    browser.get((tmp_path / "report.html").as_uri())

    def ids() -> list[str]:
        return browser.execute_script("return [...document.querySelectorAll('#rows tr')].map(r => r.dataset.id)")

    def count() -> str:
        return browser.find_element(By.ID, "count").text

    assert len(ids()) == 16 and count() == "16 of 16 outputs"
    assert browser.execute_script("return document.querySelectorAll('#rows mark.anchor').length") == 32
    search = browser.find_element(By.ID, "q")
    search.send_keys("villagers")
    assert sorted(ids()) == ["t01~s0i1", "t01~s0i2"]
    search.clear()
    search.send_keys(" ")  # clear() fires no input event: type, then erase
    search.send_keys("\b")
    assert len(ids()) == 16
    Select(browser.find_element(By.ID, "f-iter")).select_by_value("2")
    assert len(ids()) == 6 and all(i.endswith("i2") for i in ids())
    Select(browser.find_element(By.ID, "f-iter")).select_by_value("")
    Select(browser.find_element(By.ID, "f-filter")).select_by_value("drop:align0.95")
    assert len(ids()) == 6
    Select(browser.find_element(By.ID, "f-filter")).select_by_value("")
    Select(browser.find_element(By.ID, "f-judged")).select_by_value("accepted")
    assert ids() == ["t01~s0i1"]
    Select(browser.find_element(By.ID, "f-judged")).select_by_value("")
    # sort by the aligner score: numbers descending first, then ascending
    header = browser.find_element(By.XPATH, "//th[text()='aligner']")
    header.click()
    scores = browser.execute_script(
        "var i = [...document.querySelectorAll('#head th')].findIndex(t => t.textContent === 'aligner');"
        "return [...document.querySelectorAll('#rows tr')].map(r => Number(r.children[i].textContent))")
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    header.click()
    again = browser.execute_script(
        "var i = [...document.querySelectorAll('#head th')].findIndex(t => t.textContent === 'aligner');"
        "return [...document.querySelectorAll('#rows tr')].map(r => Number(r.children[i].textContent))")
    assert again == sorted(again)
