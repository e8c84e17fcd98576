"""redact (skynet_core/redact.py): keys gathered once serve many texts, and the quick look for a key's shape
never skips a text the pattern would change."""

from __future__ import annotations

import random

from skynet_core.redact import _SHAPES, NO_ENV, Secrets, _hide_value, known_secrets, redact

# Letters of the shapes, their other cases, and the characters that case-insensitive matching folds to them
# (the Kelvin sign is a "k", the long s an "s", the dotted and dotless capital I an "i").
ALPHABET = "bearBEARkKyYeEsSxXpPiI\u212a\u017f\u0130\u0131-_=:\"' ,;abc123"


def test_the_quick_look_changes_no_text_from_what_the_pattern_alone_gives() -> None:
    rng = random.Random(26)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))) for _ in range(20_000)]
    texts += ["bearer abc", "BEARER abc", "\u212aey=abcdef", "Api-\u212aey: abcdef", "sk-abcdefgh12", "X-API-KEY=zz"]
    for text in texts:
        assert redact(text, env=NO_ENV) == _SHAPES.sub(_hide_value, text), repr(text)


def test_keys_gathered_once_are_used_as_they_are_and_the_environment_is_read_otherwise(monkeypatch) -> None:
    monkeypatch.setenv("SOME_API_KEY", "env-secret-value")
    gathered = known_secrets(None, ["typed-secret-42", "short", None, "typed-secret-42"])
    assert isinstance(gathered, Secrets) and list(gathered) == ["env-secret-value", "typed-secret-42"]
    assert known_secrets(NO_ENV, gathered) is gathered
    assert known_secrets(None, gathered) == gathered  # the environment is read again when asked to
    monkeypatch.setenv("OTHER_TOKEN", "another-secret-1")
    assert "another-secret-1" in known_secrets(None, gathered)
    assert redact("env-secret-value typed-secret-42 another-secret-1", gathered, NO_ENV) == (
        "[redacted] [redacted] another-secret-1"
    )
