"""Spans as coloured HTML: the anchor (trigger / predicate / mention) and each argument label.

Colours are given per label for a whole page (:class:`Palette`), so one label has one colour in
every row and the legend lists them once. Overlapping spans are drawn innermost-on-top: the text
is cut at every span boundary and each piece takes the shortest span that covers it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from paraspan.corpus.schema import Structure

#: The anchor's colour (always the same, whatever its label).
ANCHOR_COLOUR = "#f4a261"
# Light, distinguishable fills for argument labels (text stays black on all of them).
_FILLS = ("#a8dadc", "#b5e48c", "#cdb4db", "#ffd6a5", "#bde0fe", "#fdffb6", "#ffc6ff", "#caffbf",
          "#d0f4de", "#e4c1f9", "#f1c0e8", "#9bf6ff", "#e9edc9", "#fec89a", "#d8e2dc", "#c8b6ff")


@dataclass
class Palette:
    """Label → fill colour, assigned in the order labels are first asked for (stable within a page)."""

    colours: dict[str, str] = field(default_factory=dict)

    def colour(self, label: str) -> str:
        if label not in self.colours:
            index = len(self.colours)
            if index < len(_FILLS):
                self.colours[label] = _FILLS[index]
            else:  # past the fixed fills: spread hues evenly, still light
                hue = (index * 137) % 360  # golden-angle steps keep neighbours apart
                self.colours[label] = f"hsl({hue}, 70%, 82%)"
        return self.colours[label]


@dataclass(frozen=True)
class MarkedSpan:
    start: int
    end: int
    label: str
    role: str  # "anchor" or "arg"


def structure_spans(structure: Structure, *, args: bool = True) -> list[MarkedSpan]:
    """The anchor and (optionally) the arguments of ``structure`` as marked spans."""
    out: list[MarkedSpan] = []
    if structure.anchor is not None:
        out.append(MarkedSpan(structure.anchor.start, structure.anchor.end,
                              structure.anchor.label or structure.label, "anchor"))
    if args:
        out.extend(MarkedSpan(a.start, a.end, a.label or "?", "arg") for a in structure.args)
    return out


def highlight_html(text: str, spans: Sequence[MarkedSpan], palette: Palette | None = None) -> str:
    """``text`` as escaped HTML with each span in a ``<mark>`` coloured by its label.

    Spans outside the text or empty are ignored. The anchor gets class ``anchor`` (and
    :data:`ANCHOR_COLOUR`); arguments get class ``arg``, their label's colour and a ``title``.
    """
    palette = palette or Palette()
    valid = [s for s in spans if 0 <= s.start < s.end <= len(text)]
    cuts = sorted({0, len(text), *(s.start for s in valid), *(s.end for s in valid)})
    # each piece between two cuts takes the anchor if it covers it, else the shortest covering span
    runs: list[tuple[MarkedSpan | None, str]] = []
    for left, right in zip(cuts, cuts[1:], strict=False):
        covering = [s for s in valid if s.start <= left and right <= s.end]
        best = min(covering, key=lambda s: (s.role != "anchor", s.end - s.start)) if covering else None
        if runs and runs[-1][0] == best:
            runs[-1] = (best, runs[-1][1] + text[left:right])
        else:
            runs.append((best, text[left:right]))
    parts: list[str] = []
    for best, raw in runs:
        piece = html.escape(raw)
        if best is None:
            parts.append(piece)
            continue
        colour = ANCHOR_COLOUR if best.role == "anchor" else palette.colour(best.label)
        title = html.escape(best.label, quote=True)
        parts.append(f'<mark class="{best.role}" style="background:{colour}" title="{title}">{piece}</mark>')
    return "".join(parts)


def legend_html(palette: Palette) -> str:
    """The legend: the anchor swatch, then every argument label that was coloured."""
    items = [f'<span class="swatch"><mark class="anchor" style="background:{ANCHOR_COLOUR}">anchor</mark> '
             "trigger / predicate / mention</span>"]
    for label, colour in sorted(palette.colours.items()):
        items.append(f'<span class="swatch"><mark class="arg" style="background:{colour}">'
                     f"{html.escape(label)}</mark></span>")
    return "\n".join(items)
