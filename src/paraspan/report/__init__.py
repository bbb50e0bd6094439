"""The run report: one self-contained HTML page about a run store (``paraspan report``).

:func:`paraspan.report.render.build_report` reads the store (:mod:`.collect`), draws the figures
with matplotlib (:mod:`.plots`) and writes the page (:mod:`.render`); :mod:`.highlight` colours
spans by label for the report and the review app.
"""
