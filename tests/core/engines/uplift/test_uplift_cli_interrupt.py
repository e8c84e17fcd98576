"""Ctrl+C during ``uplift`` cancels it cleanly: what finished is printed (the seeds that finished kept), the exit
status is 130, and there is no traceback. The scripted provider presses Ctrl+C (SIGINT to this process) when
the second seed's first reflection call reaches it, so the first seed has finished by then."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")


@pytest.fixture
def pressing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A server that sends SIGINT to this process at the 4th reflection call (seed 2, with 3 arms and 1 round)."""
    lock, seen = threading.Lock(), []

    def reply(received: Received) -> str:
        if received.model == "reflect":
            with lock:
                seen.append(received)
                if len(seen) == 4:
                    os.kill(os.getpid(), signal.SIGINT)
        return world.reply(received)

    world.write_folder(tmp_path)
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    with FakeOpenAI(reply=reply, usage=(100, 20)) as server:
        world.use_server(monkeypatch, server.url)
        yield tmp_path


def uplift(folder: Path, *args: str) -> tuple[int, str, str]:
    return world.run_cli(folder, "--instruction", world.START, "--seeds", "3", "--rounds", "1", *args)


def test_ctrl_c_prints_what_finished_and_exits_130(pressing: Path) -> None:
    before = signal.getsignal(signal.SIGINT)
    code, out, err = uplift(pressing)
    assert code == 130, err
    assert "Traceback" not in err and "Error" not in err
    assert "Final instruction, with feedback, seed 1:" in out and "seed 2:" not in out
    assert "The run was cancelled;" in out and "the 1 seed that finished is kept." in out
    assert signal.getsignal(signal.SIGINT) is before  # Ctrl+C works as before afterwards


def test_ctrl_c_with_json_prints_the_finished_seeds(pressing: Path) -> None:
    code, out, err = uplift(pressing, "--json")
    assert code == 130 and "Traceback" not in err
    found = json.loads(out)
    assert [len(ends["end"]) for ends in found["arms"].values()] == [1, 1, 1]
    assert "The run was cancelled;" in err
