"""The prompted paraphraser's texts: instructions and few-shot examples per style and per relation.

Kept apart from :mod:`paraspan.generate.paraphrase` (the sampling, scoring and clustering) because
they are data: what the chat model is told, and what the measurements in ``benchmarks/README.md``
were made with.
"""

from __future__ import annotations

SYSTEM_PROMPT = "You are an expert editor who paraphrases English sentences."
INSTRUCTION = (
    "Paraphrase the sentence below: keep its full meaning, but use different words and a "
    "different sentence structure. Reply with the paraphrase only, as one sentence, with no "
    "quotes and no explanation."
)
#: Faithfulness rules and examples (sentences written for paraspan), placed before the split
#: mark so that they sit in the cached prefix: they cost nothing per sentence. They show what
#: held-out outputs got wrong: numbers, names and times changed ("forty dollars" → "forty
#: cents"), the event turned around ("sold" → "bought"), things replaced by other things.
FAITHFUL = (
    "Keep every name, number, amount, date and time exactly as it is. Keep who does what to whom: "
    "a selling stays a selling (never a buying), an arrival stays an arrival. Do not replace a thing, "
    "person or place by a different one, and do not add or drop facts.\n"
    "Examples of faithful paraphrases:\n"
    "Original: The council approved the new budget on Tuesday after a long debate.\n"
    "Paraphrase: After a lengthy discussion, the new budget was passed by the council on Tuesday.\n"
    "Original: Anna lent her brother forty dollars in March 2003.\n"
    "Paraphrase: In March 2003, Anna gave her brother a loan of forty dollars.\n"
    "Original: The ferry reached Dover two hours late because of a storm.\n"
    "Paraphrase: Because of a storm, the ferry got to Dover two hours behind schedule."
)
#: The ``close`` style: change only what the bans force. Span labels are carried over by
#: alignment, and a free rewrite of the whole sentence changed facts in most held-out FrameNet
#: outputs ("prior to 1932" → "after 1932", "early 1993" → "late 1993"); a close paraphrase
#: keeps the rest of the sentence, and with it the arguments' words.
CLOSE_INSTRUCTION = (
    "Rewrite the sentence below so that it means exactly the same: replace each word you may not "
    "use by a word or phrase with the same meaning, adjusting only the words around it if grammar "
    "requires, and keep everything else as it is. Reply with the rewritten sentence only, as one "
    "sentence, with no quotes and no explanation."
)
CLOSE_EXAMPLES = (
    "Keep every name, number, amount, date and time exactly as it is, and keep who does what to whom.\n"
    "Examples:\n"
    "Original: The council approved the new budget on Tuesday after a long debate.\n"
    'Do not use: "approved".\n'
    "Rewritten: The council passed the new budget on Tuesday after a long debate.\n"
    "Original: Anna lent her brother forty dollars in March 2003.\n"
    'Do not use: "lent".\n'
    "Rewritten: Anna loaned her brother forty dollars in March 2003.\n"
    "Original: The ferry reached Dover two hours late because of a storm.\n"
    'Do not use: "reached", "storm".\n'
    "Rewritten: The ferry arrived in Dover two hours late because of a gale."
)
#: paraphrase styles: the instruction and the examples of each
STYLES = {"free": (INSTRUCTION, FAITHFUL), "close": (CLOSE_INSTRUCTION, CLOSE_EXAMPLES)}
#: Directional paraphrases (sentences written for paraspan). A forward output drops details outside
#: the kept phrases and never a name or number (the ``facts`` check of ``augment`` wants them all);
#: a reverse output adds details *around* the sentence, not inside its phrases (the labelled spans
#: keep their words). The example lines use the real prompt's wording for bans and kept phrases.
FORWARD_INSTRUCTION = (
    "Rewrite the sentence below as a shorter, more general sentence that is true whenever the sentence "
    "below is true: leave out one or two details (a describing word, an adverb, or a phrase or clause that "
    "only adds information) and keep the rest as it is. Do not add anything, and do not change who does "
    "what to whom. Reply with the rewritten sentence only, as one sentence, with no quotes and no explanation."
)
FORWARD_EXAMPLES = (
    "Keep every name, number, amount, date and time, and every phrase you are asked to keep.\n"
    "Examples:\n"
    "Original: The tired committee finally approved the new library budget on Tuesday after a long debate.\n"
    'Do not use these words, in any form: "approved".\n'
    "Rewritten: The committee passed the library budget on Tuesday.\n"
    "Original: Marta quietly lent her younger cousin sixty euros for a second-hand guitar.\n"
    'Keep these phrases exactly as they are written: "her younger cousin".\n'
    "Rewritten: Marta lent her younger cousin sixty euros.\n"
    "Original: The crowded night train from Leeds reached York forty minutes late because a signal had failed.\n"
    'Do not use these words, in any form: "reached".\n'
    "Rewritten: The train from Leeds arrived in York forty minutes late."
)
REVERSE_INSTRUCTION = (
    "Rewrite the sentence below as a more specific sentence: keep everything it says, and add one or two "
    "plausible details of your own that fit it (when, where, how or why), so that the new sentence implies "
    "the original one. Do not change, remove or contradict anything it says. Reply with the rewritten "
    "sentence only, as one sentence, with no quotes and no explanation."
)
REVERSE_EXAMPLES = (
    "Keep every name, number, amount, date and time, and every phrase you are asked to keep.\n"
    "Examples:\n"
    "Original: The committee approved the library budget.\n"
    'Do not use these words, in any form: "approved".\n'
    "Rewritten: The committee passed the library budget so that the reading room could stay open on Sundays.\n"
    "Original: Marta lent her cousin sixty euros.\n"
    'Keep these phrases exactly as they are written: "her cousin".\n'
    "Rewritten: Marta lent her cousin sixty euros so that he could buy a second-hand guitar.\n"
    "Original: The train from Leeds arrived in York late.\n"
    'Do not use these words, in any form: "arrived".\n'
    "Rewritten: Because a signal had failed, the train from Leeds reached York late on Friday night."
)
#: the relations a paraphrase may have to its source: each direction's instruction and examples
#: (``equivalence`` uses the style's)
DIRECTIONS = {"forward": (FORWARD_INSTRUCTION, FORWARD_EXAMPLES), "reverse": (REVERSE_INSTRUCTION, REVERSE_EXAMPLES)}
RELATIONS = ("equivalence", "forward", "reverse")
#: the class of :func:`paraspan.filter.relations.relate` that each requested relation asks for
RELATION_CLASS = {"equivalence": "equivalence", "forward": "forward_entailment", "reverse": "reverse_entailment"}
#: the direction from a candidate back to its source (for the backward score)
_INVERSE = {"equivalence": "equivalence", "forward": "reverse", "reverse": "forward"}


#: The prompt is cached up to here: everything before it is the same for every sentence.
SPLIT_MARK = "Sentence:"
