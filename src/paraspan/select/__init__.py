"""Selection: pick a small, collectively diverse subset of generated candidates.

:mod:`paraspan.select.cluster` — k-medoids under token edit distance with a discarded
source-anchored cluster (ParaBank 2, §2.3).
"""
