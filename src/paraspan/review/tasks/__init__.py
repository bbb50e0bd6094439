"""Review tasks, their assignment to annotators, and the responses, kept in the run store.

The protocol is that of Culkin et al. 2021 §6.1. A *task* shows the definition of the expected
frame (the source's frame: paraphrasing is meant to keep it) and two or three gold example
sentences, then three *candidates* in random order, each with its highlighted trigger and a 0–100
rating of how well the trigger evokes the frame in context:

1. the system output (frame *a*, its lexical unit *b*),
2. a gold in-frame sentence (frame *a*, another LU),
3. a gold out-of-frame sentence (another frame; the output's own trigger word in another frame
   when the gold sentences have one, so that the control is not trivially easy).

The annotator never sees the source sentence (it is neither a control nor an example), nor which
candidate is which: the page gets opaque slots ``c0..c2``. Example triggers are kept disjoint from
the candidates' triggers (the paper's footnote 19). For SRL and entity runs the same protocol
asks whether the highlighted span has the structure's label (predicate sense, entity type).

Tables (created on the store's own SQLite file, next to the store's tables, ``review_`` prefix):

``review_tasks(id, output_id UNIQUE, rank, kind, label, definition, question, examples, items, created)``
    one per judged output; ``items`` (JSON) holds the candidates in display order with what the
    page must not see (which is the output, the gold sentence ids); ``rank`` is a seeded random
    order so that annotators sample the whole run, not its first inputs.
``review_assignments(task_id, annotator, assigned)``
    who was given which task, when.
``review_responses(task_id, annotator, item_id, kind, score, time, seconds, judgment_id)``
    one rating per candidate; the primary key (task, annotator, item) makes a double submission
    impossible. A rating of the system output is also written to the store's ``judgments`` table
    (``judgment_id``), which is what ``paraspan train-filter`` learns from.

Assignment: an annotator gets back their unfinished task if they have one; otherwise the task
with the fewest (finished + currently assigned) annotators, never one they already had, and
never one that has ``redundancy`` ratings. So concurrent annotators get different tasks until
every task has been handed out, and only then start a second round.

**Output mode** (``paraspan review --mode output``) judges each output as an annotator would judge
the whole of it: grammatical English, the source's meaning kept, every span and label right. A
task shows the source sentence and the output, each with every span of the structure highlighted
and labelled, and takes one 0–100 score (≥ 50: fully correct) with an optional note that says
what was wrong first, ``KIND: free text`` (KIND one of :data:`NOTE_KINDS`). There are no gold
controls. Its tasks live in tables of their own (``review_output_tasks`` with a ``view`` column
instead of ``examples``, ``review_output_assignments``, ``review_output_responses``), so both modes
can run on one store without mixing their tasks, progress or assignments.

Judgments of outputs carry a JSON note ``{"review_task", "seconds"}``, with ``"mode": "output"``
in output mode and ``"note"``: the annotator's note, when they gave one.
"""

from paraspan.review.tasks.common import (
    GOLD_IN,
    GOLD_OUT,
    MAX_NAME,
    MAX_NOTE,
    MODES,
    NOTE_KINDS,
    OUTPUT,
    QUESTIONS,
    SLOTS,
    SYSTEM,
    TRIGGER,
    Mode,
    PrepareResult,
    ReviewError,
    ensure_tables,
    mode_of,
)
from paraspan.review.tasks.gold import GoldEntry, GoldPool, build_task, prepare_tasks
from paraspan.review.tasks.output import (
    OUTPUT_QUESTION,
    build_output_task,
    labelled_html,
    labelled_spans,
    prepare_output_tasks,
    sentence_view,
)
from paraspan.review.tasks.serving import ReviewSettings, check_annotator, check_note, next_task, progress, submit

__all__ = ["GOLD_IN", "GOLD_OUT", "MAX_NAME", "MAX_NOTE", "MODES", "NOTE_KINDS", "OUTPUT", "OUTPUT_QUESTION",
           "QUESTIONS", "SLOTS", "SYSTEM", "TRIGGER", "GoldEntry", "GoldPool", "Mode", "PrepareResult", "ReviewError",
           "ReviewSettings", "build_output_task", "build_task", "check_annotator", "check_note", "ensure_tables",
           "labelled_html", "labelled_spans", "mode_of", "next_task", "prepare_output_tasks", "prepare_tasks",
           "progress", "sentence_view", "submit"]
