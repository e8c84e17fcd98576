"""Translation catalogs of the studio (see skynet_core/i18n/translate.py).

python scripts/i18n.py compile              merge locale/<lang>/parts/*.po, write LC_MESSAGES/skynet.mo
python scripts/i18n.py check                fail on an untranslated string, a lost placeholder, a stale .mo
python scripts/i18n.py todo [PATH ...]      print, as .po, the strings of PATHs not translated yet
python scripts/i18n.py extract              write locale/skynet.pot (the template, for translators' tools)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# This tree's skynet_core, not the one the virtualenv has installed (a worktree's strings are its own).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skynet_core.i18n import LANGUAGES, SOURCE_LANGUAGE  # noqa: E402
from skynet_core.i18n import catalog as catalogs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["compile", "check", "todo", "extract"])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--lang", default="zh_CN", choices=[k for k in LANGUAGES if k != SOURCE_LANGUAGE])
    args = parser.parse_args(argv)

    if args.command == "compile":
        for path in catalogs.compile_all():
            print(f"wrote {path}")
        return 0
    if args.command == "extract":
        print(f"wrote {catalogs.write_template()}")
        return 0
    if args.command == "todo":
        sys.stdout.write(catalogs.todo(args.lang, args.paths or None))
        return 0

    problems = catalogs.check(args.lang)
    for item in problems.untranslated:
        where = ", ".join(f"{path}:{line}" for path, line in item.locations[:3])
        print(f"untranslated ({where}): {item.message!r}")
    for message, target in problems.placeholders:
        print(f"placeholders differ: {message!r} -> {target!r}")
    for message, first, second in problems.conflicts:
        print(f"two translations of {message!r}: {first!r} / {second!r}")
    if problems.stale_mo:
        print(f"{catalogs.mo_path(args.lang)} is not current: run python scripts/i18n.py compile")
    if problems:
        return 1
    print(f"{args.lang}: every string is translated and the compiled catalog is current")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
