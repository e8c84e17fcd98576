"""A feedback's reward lines in the reader's language.

``reward()`` ends the feedback with one line per part of the reward ("Speed: 850 ms against a 2000 ms reference,
0.70."), written in the language of the session that scored: that text is what the metric returned, what the engines
read and what a run keeps. A person reading a kept run in another language reads those lines in their own:
:func:`localized_feedback` finds the trailing lines that are reward lines (whichever language wrote them), takes
their parts (the measurement, the reference, the score) and writes them again in the current language. The metric's
own text before them is never touched.
"""

from __future__ import annotations

import functools
import re

from ..i18n import LANGUAGES, _, translations
from ..scoring.sandbox.skynet._reward import FEEDBACK_LINES, reference_article

LineKey = tuple[str, str, bool]
"""A reward line's kind: (part, the reference's article in English, whether the part's weight is 0)."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@functools.cache
def _patterns() -> tuple[tuple[LineKey, re.Pattern[str]], ...]:
    """Each kind of line as each language writes it, its parts as named groups."""
    found = []
    for key, template in FEEDBACK_LINES.items():
        for language in LANGUAGES:
            written = translations(language).gettext(template)
            pieces = _PLACEHOLDER.split(written)  # literal, name, literal, name, ...
            pattern = "".join(
                re.escape(piece) if index % 2 == 0 else f"(?P<{piece}>\\S+?)" for index, piece in enumerate(pieces)
            )
            found.append((key, re.compile(pattern)))
    return tuple(found)


def _in_language(line: str) -> str | None:
    """``line`` written again in the current language, when it is a reward line (else ``None``)."""
    for (part, _article, unweighted), pattern in _patterns():
        match = pattern.fullmatch(line)
        if match is None:
            continue
        values = match.groupdict()
        article = ""
        if "reference" in values:  # the English article follows the number read aloud ("an 800 ms reference")
            article = "a" if part == "cost" else reference_article(values["reference"])
        return _(FEEDBACK_LINES[(part, article, unweighted)]).format(**values)
    return None


def localized_feedback(text: str) -> str:
    """``text`` with its trailing reward lines in the current language; everything else exactly as written."""
    lines = text.split("\n")
    end = len(lines)
    while end > 0:
        shown = _in_language(lines[end - 1])
        if shown is None:
            break
        lines[end - 1] = shown
        end -= 1
    return "\n".join(lines)
