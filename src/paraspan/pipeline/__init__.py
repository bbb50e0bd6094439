"""Iterative paraphrastic augmentation (Culkin et al. 2021, §5): the main job.

read → generate → project → filter → select → write, one input sentence at a time:

- :mod:`.config`: the run's config (run settings + a block per component), versions, ``--set``;
- :mod:`.components`: generator, aligner and filters built from their blocks through the registries;
- :mod:`.loop`: :class:`Augmenter`, one sentence through generate → project → filter;
- :mod:`.executors`: in process, local worker processes, or Ray actors;
- :mod:`.run`: a run through its :mod:`.store` (SQLite, resumable) and exporting what it kept;
- :mod:`.summary`: what a run produced.

Importing this package loads no model.
"""

from __future__ import annotations

from paraspan.pipeline.components import build_aligner, build_filters, build_generator, check
from paraspan.pipeline.config import AugmentConfig, ComponentSpec, apply_overrides
from paraspan.pipeline.loop import METHOD, Augmenter
from paraspan.pipeline.run import decide_in_store, export_outputs, open_store, run_augment, stored_config
from paraspan.pipeline.summary import RunSummary, summarize

__all__ = ["METHOD", "AugmentConfig", "Augmenter", "ComponentSpec", "RunSummary", "apply_overrides", "build_aligner",
           "build_filters", "build_generator", "check", "decide_in_store", "export_outputs", "open_store",
           "run_augment", "stored_config", "summarize"]
