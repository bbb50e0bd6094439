"""Text utilities: detokenization with offsets (:mod:`.detok`), inflection-aware lexical
constraints (:mod:`.constraints`), and the lexical unit of a new anchor (:mod:`.lexical_units`).

Inflection and WordNet come from packaged models (:mod:`paraspan.models`). Nothing here imports
the corpus package: the corpus readers use :mod:`.detok`.
"""
