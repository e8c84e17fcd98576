"""The language seam and the catalogs: every string a person reads has its Chinese translation."""

import threading
from contextvars import copy_context

import pytest

from skynet_core.i18n import _, format_duration, from_environment, language, resolve, set_language, use_language
from skynet_core.i18n import catalog as i18n_catalog


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("zh-CN", "zh_CN"),
        ("zh_CN.UTF-8", "zh_CN"),
        ("zh-Hans", "zh_CN"),
        ("zh", "zh_CN"),
        ("en-GB", "en"),
        ("fr_FR.UTF-8", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_a_locale_tag_resolves_to_a_supported_language(tag, expected):
    assert resolve(tag) == expected


def test_the_environment_is_read_in_posix_order():
    assert from_environment({"LANG": "zh_CN.UTF-8"}) == "zh_CN"
    assert from_environment({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert from_environment({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}) == "zh_CN"
    assert from_environment({}) == "en"


def test_the_language_belongs_to_the_context_and_a_copied_context_follows_it():
    seen = {}
    with use_language("zh_CN"):
        assert format_duration(2.5) == "2.5 秒"
        context = copy_context()
        thread = threading.Thread(target=lambda: context.run(lambda: seen.setdefault("lang", language())))
        thread.start()
        thread.join()
    assert seen["lang"] == "zh_CN"
    assert language() == "en"
    assert _("{value} s") == "{value} s"


def test_set_language_resolves_what_it_is_given():
    context = copy_context()
    assert context.run(set_language, "zh-Hans-CN") == "zh_CN"
    assert context.run(language) == "zh_CN"
    assert language() == "en"


def test_every_string_has_a_chinese_translation_with_the_same_placeholders():
    problems = i18n_catalog.check("zh_CN")
    untranslated = [f"{item.locations[0][0]}:{item.locations[0][1]} {item.message!r}" for item in problems.untranslated]
    assert not untranslated, "translate these in skynet_core/locale/zh_CN/parts/*.po:\n" + "\n".join(untranslated)
    assert not problems.placeholders, problems.placeholders
    assert not problems.conflicts, problems.conflicts
    assert not problems.stale_mo, "run: python scripts/i18n.py compile"


def test_the_checker_notices_a_lost_placeholder(tmp_path):
    found = [i18n_catalog.Found("{value} s", (("x.py", 1),))]
    assert not i18n_catalog.check("zh_CN", found).placeholders
    assert i18n_catalog.placeholders("{a} and {b:.2f} but not {{c}}") == {"a", "b"}
