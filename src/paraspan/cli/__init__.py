"""The ``paraspan`` command line (typer): the only place that prints or draws progress.

:mod:`.main` builds the app and registers the commands, which live one module per area
(:mod:`.align`, :mod:`.augment`, :mod:`.paraphrase`, :mod:`.rewrite`, :mod:`.infill`, :mod:`.relations`,
:mod:`.downstream`, :mod:`.report`). :mod:`.common` holds what they share: the stderr console, the
progress display they hand to library code as a callback, and the reader options (``--from``,
``--split``, ``--splits``, ``--exemplars``, ``--scheme``, ``--trim-punct``, ``--limit``).
"""
