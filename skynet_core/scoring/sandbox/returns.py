"""Checks of what `score` returned and of how `score` is defined (contract Part A and Part B rules 1-5, 15).

Shapes from other frameworks (DSPy's metric signature and ``dspy.Prediction``, a function named
``metric``, a ``{"score", "feedback"}`` dict, named scores as ``{name: {"score": ...}}``) are
recognised and explained, never accepted (rule 15).

STDLIB ONLY: this module runs inside the metric's sandbox, where the values
live, and is imported by the parent as part of ``skynet_core.metric.contract``.
Every message names the mistake and the fix in one sentence.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from typing import Any

try:  # the studio imports this module as skynet_core.scoring.sandbox.returns
    from .skynet._i18n import _, ngettext
except ImportError:  # the metric's child process, where it is the top-level module `returns`
    from skynet._i18n import _, ngettext  # type: ignore[no-redef]

PAIR_EXAMPLE = '(1.0, {"feedback": "..."})'
SCORE_DEF = "def score(input, output, expected=None):"
# DSPy metrics are called metric(example, prediction, trace=None, pred_name=None, pred_trace=None).
DSPY_FIRST = ("example", "gold")
DSPY_SECOND = ("prediction", "pred")
DSPY_ONLY = ("trace", "pred_name", "pred_trace")
MAX_NAMED_SCORES = 256
"""Named scores a case may return: engines optimize a handful, and each is a column of the studio's tables."""


def _dspy_fix() -> str:
    return _(
        'change it to `{definition}`, read expected["answer"] (a dict of the case\'s output columns) '
        "instead of example.answer and output instead of prediction.answer, and return "
        '(score, {{"feedback": ...}}) instead of dspy.Prediction'
    ).format(definition=SCORE_DEF)


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not break the check
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__name__ if module in ("builtins", None) else f"{module}.{kind.__name__}"


def _is_bool(value: Any) -> bool:
    # numpy.bool_ is not a numbers.Real subclass but reads as one to people.
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool8")


def _subject(what: str) -> str:
    """How a message names the number it is about: the score, or a named score."""
    if what == "score":
        return _("score")
    if what.startswith("named score "):
        return _("named score {name}").format(name=what[len("named score ") :])
    return what


def check_number(value: Any, what: str) -> tuple[float | None, str]:
    """Return ``(float_value, "")`` for a valid real number, else ``(None, message)``.

    ``what`` is ``"score"`` or ``"named score 'NAME'"``."""
    if _is_bool(value):
        return None, _("{what} is a bool ({value}); return 1.0 or 0.0").format(what=_subject(what), value=repr(value))
    if value is None:
        return None, _("{what} is None; return a number such as 0.0").format(what=_subject(what))
    if isinstance(value, (str, bytes)):
        try:
            number_text = repr(float(value))
        except (TypeError, ValueError):
            return None, _("{what} is a string ({value}); return a number, not text").format(
                what=_subject(what), value=_short(value)
            )
        return None, _("{what} is a string ({value}); return a number: {number}, not text").format(
            what=_subject(what), value=_short(value), number=number_text
        )
    if not isinstance(value, numbers.Real):
        return None, _("{what} is a {type} ({value}); return a plain number, e.g. float(x)").format(
            what=_subject(what), type=_type_name(value), value=_short(value)
        )
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        return None, _("{what} ({value}) cannot be converted to a float ({error}); return a plain number").format(
            what=_subject(what), value=_short(value), error=exc
        )
    if math.isnan(number):
        return None, _("{what} is NaN; check for 0/0 or a mean of nothing, and return a finite number").format(
            what=_subject(what)
        )
    if math.isinf(number):
        message = (
            _("{what} is -infinite; return a finite number")
            if number < 0
            else _("{what} is infinite; return a finite number")
        )
        return None, message.format(what=_subject(what))
    return number, ""


def usual_return(value: Any) -> tuple[float, str] | None:
    """The score and feedback of the usual return, ``(a float or int, {"feedback": text})`` with a finite score,
    which :func:`check_return` accepts as it is; ``None`` for any other value (check it with that)."""
    if type(value) is tuple and len(value) == 2:
        number, side = value
        kind = type(number)
        if (kind is float or kind is int) and type(side) is dict and len(side) == 1:
            feedback = side.get("feedback")
            if type(feedback) is str:
                try:
                    number = float(number)
                except OverflowError:
                    return None  # an int too large for a float: the long way says so
                if math.isfinite(number):
                    return number, feedback
    return None


def check_return(value: Any) -> dict[str, Any]:
    """Validate a value returned by ``score``.

    Returns ``{"status": "ok", "score", "scores", "feedback", "extra"}`` or
    ``{"status": "invalid", "error": message}``. ``extra`` holds the other
    side-information keys, which are allowed (Part B rule 3).
    """
    usual = usual_return(value)
    if usual is not None:
        return {"status": "ok", "score": usual[0], "scores": {}, "feedback": usual[1], "extra": {}}
    problem = _pair_problem(value)
    if problem:
        return {"status": "invalid", "error": problem}
    score_value, side = value[0], value[1]
    score, message = check_number(score_value, "score")
    if message:
        return {"status": "invalid", "error": message}
    if not isinstance(side, dict):
        return {"status": "invalid", "error": _side_not_dict(score_value, side)}
    if "feedback" not in side:
        keys = ", ".join(repr(key) for key in list(side)[:5])
        fix = _('add "feedback": a string that says what was wrong and what right looks like')
        if keys:
            error = _("side information has no 'feedback' key (it has {keys}); {fix}").format(keys=keys, fix=fix)
        else:
            error = _("side information has no 'feedback' key (it has no keys); {fix}").format(fix=fix)
        return {"status": "invalid", "error": error}
    feedback = side["feedback"]
    if not isinstance(feedback, str):
        return {
            "status": "invalid",
            "error": _("feedback is a {type} ({value}); make it a string, e.g. str(...)").format(
                type=_type_name(feedback), value=_short(feedback)
            ),
        }
    scores, message = _check_scores(side.get("scores", {}))
    if message:
        return {"status": "invalid", "error": message}
    extra = {key: item for key, item in side.items() if key not in ("feedback", "scores")}
    return {"status": "ok", "score": score, "scores": scores, "feedback": feedback, "extra": extra}


def _pair_problem(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        if len(value) == 2:
            return ""
        return _(
            "score returned a {type} of {count} items; "
            "return exactly two: the score and the side information, {example}"
        ).format(type=type(value).__name__, count=len(value), example=PAIR_EXAMPLE)
    if value is None:
        return _("score returned None: is a `return` missing? Return a pair {example}").format(example=PAIR_EXAMPLE)
    if inspect.isgenerator(value) or inspect.isasyncgen(value):
        return _(
            "score returned a generator: is there a stray `yield` in score? Use `return (score, {{...}})` instead"
        ).format()
    if inspect.iscoroutine(value) or inspect.isawaitable(value):
        if hasattr(value, "close"):
            value.close()  # avoid a "never awaited" warning in the captured output
        return _(
            "score returned a coroutine: is score (or a function it returns) `async`? "
            "Metric code must be synchronous; use a plain `def`"
        )
    if _is_bool(value) or isinstance(value, numbers.Number):
        return _(
            'score returned a bare number ({value}) with no side information; return ({value}, {{"feedback": "..."}})'
        ).format(value=_short(value))
    if isinstance(value, dict):
        return _dict_problem(value)
    if isinstance(value, str):
        return _("score returned a string ({value}); return a pair {example}").format(
            value=_short(value), example=PAIR_EXAMPLE
        )
    if _has_attr(value, "score"):
        feedback = "pred.feedback" if _has_attr(value, "feedback") else '"..."'
        return _(
            "score returned a {type} with a .score, as a DSPy metric does; Skynet wants a pair: "
            'return (pred.score, {{"feedback": {feedback}}}) instead of the {name}'
        ).format(type=_type_name(value), feedback=feedback, name=type(value).__name__)
    return _("score returned a {type}; return a tuple or list of two: {example}").format(
        type=_type_name(value), example=PAIR_EXAMPLE
    )


def _has_attr(value: Any, name: str) -> bool:
    try:
        return hasattr(value, name)
    except Exception:  # noqa: BLE001  (a hostile __getattr__ must not break the check)
        return False


def _dict_problem(value: dict[Any, Any]) -> str:
    if "score" in value:
        feedback = next((key for key in ("feedback", "reason", "explanation", "rationale") if key in value), None)
        side = f'{{"feedback": d["{feedback}"]}}' if feedback else '{"feedback": "..."}'
        return _(
            "score returned a dict, not a pair ({value}); return the score first and the "
            'feedback in the side information: return (d["score"], {side})'
        ).format(value=_short(value, 50), side=side)
    if value and all(isinstance(item, dict) and "score" in item for item in value.values()):
        name = next(iter(value))
        return _(
            'score returned a dict, not a pair, of named scores given as {{name: {{"score": ...}}}}; '
            'return (overall, {{"feedback": "...", "scores": {{{name}: number, ...}}}})'
        ).format(name=repr(name))
    return _("score returned a dict, not a pair; put the score first: (score, {value})").format(value=_short(value, 40))


def _side_not_dict(score_value: Any, side: Any) -> str:
    if isinstance(side, str):
        fix = f'({_short(score_value)}, {{"feedback": {_short(side, 40)}}})'
        return _("side information is a string, not a dict; wrap it: {fix}").format(fix=fix)
    return _('side information is a {type}, not a dict; return (score, {{"feedback": "..."}})').format(
        type=_type_name(side)
    )


def _check_scores(scores: Any) -> tuple[dict[str, float], str]:
    if not isinstance(scores, dict):
        return {}, _(
            "side information 'scores' is a {type}; make it a dict of names to numbers, e.g. {{\"format\": 1.0}}"
        ).format(type=_type_name(scores))
    if len(scores) > MAX_NAMED_SCORES:
        return {}, _(
            'side information has {count} named scores in "scores"; at most {limit} are allowed per case: keep '
            "the ones the engines should optimize there, and put the rest under another side-information key"
        ).format(count=len(scores), limit=MAX_NAMED_SCORES)
    checked: dict[str, float] = {}
    for key, item in scores.items():
        if not isinstance(key, str) or not key:
            return {}, _('named score key {key} is not a non-empty string; name each score, e.g. "format"').format(
                key=_short(key)
            )
        if isinstance(item, dict) and "score" in item:
            return {}, _(
                "named score {name} is a dict ({value}); give the number itself: "
                '"scores": {{{name}: {number}}}, and put any explanation in the feedback'
            ).format(name=repr(key), value=_short(item, 40), number=_short(item["score"], 20))
        number, message = check_number(item, f"named score {key!r}")
        if number is None:
            return {}, message
        checked[key] = number
    return checked, ""


def describe_signature(func: Any) -> str:
    try:
        return f"score{inspect.signature(func)}"
    except (TypeError, ValueError):
        return "score(...)"


def _where(func: Any, locate: Callable[[str], str | None] | None) -> dict[str, Any]:
    """``{"line": N}`` (and ``"file"`` when not metric.py) where ``func`` is defined in the metric folder."""
    code = getattr(func, "__code__", None)
    if code is None or locate is None:
        return {}
    file = locate(code.co_filename)
    if file is None:
        return {}
    where: dict[str, Any] = {"line": code.co_firstlineno}
    if file != "metric.py":
        where["file"] = file
    return where


def _dspy_shape(func: Any) -> bool:
    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return False
    if any(name in DSPY_ONLY for name in names):
        return True
    return len(names) >= 2 and names[0] in DSPY_FIRST and names[1] in DSPY_SECOND


def check_signature(namespace: dict[str, Any], locate: Callable[[str], str | None] | None = None) -> dict[str, Any]:
    """Decide how to call ``score`` (Part B rules 5 and 15).

    Returns ``{"ok": True, "arity": 3 | 2, "signature": str}`` or
    ``{"ok": False, "message": str, "signature": str}``; either may carry ``line`` (and ``file``)
    where the function is defined, when ``locate`` maps a code file name to the metric folder's.
    """
    if "score" not in namespace:
        return _no_score(namespace, locate)
    func = namespace["score"]
    found = describe_signature(func)
    where = _where(func, locate)
    return _unusable_kind(func, found, where) or _by_parameters(func, found, where)


def _no_score(namespace: dict[str, Any], locate: Callable[[str], str | None] | None) -> dict[str, Any]:
    """The verdict when metric.py defines no ``score``: rename ``metric``, or add ``score``."""
    other = namespace.get("metric")
    if inspect.isfunction(other):
        if _dspy_shape(other):
            message = _(
                "metric.py defines a function named metric, but Skynet calls score; rename it: "
                "`{definition}`. It has DSPy's metric signature: {fix}"
            ).format(definition=SCORE_DEF, fix=_dspy_fix())
        else:
            message = _(
                "metric.py defines a function named metric, but Skynet calls score; rename it: `{definition}`."
            ).format(definition=SCORE_DEF)
        return {
            "ok": False,
            "signature": describe_signature(other).replace("score", "metric", 1),
            "message": message,
            **_where(other, locate),
        }
    return {
        "ok": False,
        "signature": "",
        "message": _(
            "metric.py defines no function named score; add "
            '`def score(input, output, expected=None):` that returns (score, {{"feedback": ...}})'
        ).format(),
    }


def _unusable_kind(func: Any, found: str, where: dict[str, Any]) -> dict[str, Any] | None:
    """The verdict when ``score`` cannot be called as a plain function (DSPy's shape, async, a generator,
    not a function), else ``None``."""
    if inspect.isfunction(func) and _dspy_shape(func):
        return {
            "ok": False,
            "signature": found,
            **where,
            "message": _(
                "score has DSPy's metric signature ({found}), but Skynet calls score(input, output, expected): {fix}"
            ).format(found=found, fix=_dspy_fix()),
        }
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        return {
            "ok": False,
            "signature": f"async def {found}",
            "message": _(
                "score is `async def` ({found}); engines call it synchronously, so make it a plain `def`"
            ).format(found=found),
        }
    if inspect.isgeneratorfunction(func):
        return {
            "ok": False,
            "signature": found,
            "message": _(
                "score is a generator function ({found}) because it contains `yield`; "
                "use `return (score, {{...}})` instead"
            ).format(found=found),
        }
    if not inspect.isfunction(func):
        return {
            "ok": False,
            "signature": found,
            "message": _(
                "score is a {type}, not a function; define it with `def score(input, output, expected=None):`"
            ).format(type=_type_name(func)),
        }
    return None


def _by_parameters(func: Any, found: str, where: dict[str, Any]) -> dict[str, Any]:
    """The verdict from a plain function's parameters: called with 3 or 2 arguments, or why it cannot be."""
    params = list(inspect.signature(func).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    required_kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    if required_kwonly:
        return {
            "ok": False,
            "signature": found,
            "message": _(
                "score has required keyword-only parameters ({names}) that Skynet cannot fill; "
                "found {found}, expected score(input, output, expected=None)"
            ).format(names=", ".join(required_kwonly), found=found),
        }
    if len(required) <= 3 and (len(positional) >= 3 or varargs):
        return {"ok": True, "arity": 3, "signature": found, **where}
    if len(positional) == 2 and len(required) <= 2:
        return {"ok": True, "arity": 2, "signature": found, **where}
    return {
        "ok": False,
        "signature": found,
        **where,
        "message": ngettext(
            "score takes {count} positional parameter(s) ({found}); "
            "it must accept (input, output, expected=None) or exactly (input, output)",
            "score takes {count} positional parameter(s) ({found}); "
            "it must accept (input, output, expected=None) or exactly (input, output)",
            len(positional),
        ).format(count=len(positional), found=found),
    }
