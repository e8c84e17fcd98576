"""litellm's import in the background (``warm_up``) is never cut off by the process's exit.

A process that exits while the daemon thread is mid-import leaves the module's import lock held; an object whose
finalizer then imports from litellm waits on it for ever (a pytest run once hung so at its exit). Here a stand-in
litellm that takes 1 s to import shows whether the import was whole when the process's last exit handler ran.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

EXITS_AT_ONCE = """
import atexit, sys
from skynet_core.llm import provider

# Registered first, so it runs last: after every handler the project registers.
atexit.register(lambda: print("imported at exit:", provider.litellm_ready(), flush=True))
provider.warm_up()
"""


def test_a_process_that_exits_mid_import_waits_for_it_to_end(tmp_path: Path) -> None:
    stand_in = tmp_path / "litellm"
    stand_in.mkdir()
    (stand_in / "__init__.py").write_text(
        "import time\ntime.sleep(1.0)\ntelemetry = True\nsuppress_debug_info = False\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", EXITS_AT_ONCE],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{ROOT}", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "imported at exit: True" in done.stdout, done.stdout + done.stderr
