"""The GPU window (benchmarks/gpu_window.py, `gpu_session.sh window`) and the campaign
command line under numba-cuda's simulator: a window measures only what is unmeasured,
trains a tiny campaign with its arena beside it and lays out what the repository keeps;
a second call goes on from the first's files; Ctrl-C saves the campaign first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda", reason="the GPU scripts need numba-cuda (the gpu extra)")
pytest.importorskip("torch")

from interrupt_kit import interrupt_when  # noqa: E402
from sim_kit import ROOT, simulator_env  # noqa: E402
from sim_kit import TINY_CAMPAIGN as TINY  # noqa: E402

from kanaloa_env.training.campaign_file import load_campaign  # noqa: E402

CHECKS = ["--golden-games", "1", "--golden-cases", "kahuna_short", "--decisions", "30"]
CHECKS += ["--diff-batch", "3", "--heuristic-decisions", "9"]


def _campaign(tmp_path: Path) -> Path:
    folder = tmp_path / "campaigns" / "ktiny"
    folder.mkdir(parents=True)
    (folder / "recipe.json").write_text(json.dumps(TINY))
    return folder


def _window(folder: Path, tmp_path: Path, out: str) -> Path:
    argv = [sys.executable, str(ROOT / "benchmarks" / "gpu_window.py"), str(folder)]
    argv += ["--out", str(tmp_path / out), "--seconds", "400", "--measure-seconds", "200"]
    argv += ["--checkpoint-seconds", "0.01", "--workers", "1", "--arena-games", "2"]
    argv += ["--max-chunks", "2", "--measured", str(tmp_path / "measured.json")]
    argv += ["--keep", str(tmp_path / "keep"), *CHECKS]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=600, env=simulator_env(), cwd=ROOT
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return tmp_path / out


def test_a_window_measures_what_is_left_trains_and_a_second_call_goes_on(tmp_path: Path) -> None:
    folder = _campaign(tmp_path)
    measured = {name: {"date": "2026-01-01"} for name in ("start", "engines", "learner", "recipe")}
    (tmp_path / "measured.json").write_text(json.dumps(measured))
    out = _window(folder, tmp_path, "out1")
    log = (out / "window.log").read_text()
    assert "measure checks: exit 0" in log and "measure start" not in log
    assert json.loads((out / "measure" / "checks.json").read_text())["ok"]
    kept = out / "repo" / "data" / "campaigns" / "ktiny"
    assert load_campaign(kept / "campaign.npz").progress["chunks"] == 2
    first = json.loads((kept / "arena.json").read_text())
    assert len(first) == 1 and first[0]["games"] == 2 and first[0]["decisions"] > 0
    recorded = json.loads((out / "repo" / "benchmarks" / "gpu_measured.json").read_text())
    assert sorted(recorded) == ["checks", "engines", "learner", "recipe", "start"]
    assert (tmp_path / "keep" / "ktiny" / "campaign.npz").is_file()  # every save mirrored
    side = json.loads((out / "cpu_side.json").read_text())
    assert [s["kind"] for s in side] == ["arena"]

    again = _window(folder, tmp_path, "out2")  # the same machine: resumes from --keep
    assert "measure " not in (again / "window.log").read_text()  # (nothing left to measure)
    kept = again / "repo" / "data" / "campaigns" / "ktiny"
    progress = load_campaign(kept / "campaign.npz").progress
    assert progress["chunks"] == 4 and progress["windows"] == 2
    assert len(json.loads((kept / "arena.json").read_text())) == 2


def test_ctrl_c_saves_the_campaign_before_it_stops(tmp_path: Path) -> None:
    folder = _campaign(tmp_path)
    argv = ["env", "NUMBA_ENABLE_CUDASIM=1", "NUMBA_DISABLE_JIT=1", sys.executable, "-m"]
    argv += ["kanaloa_env.training.campaign", "train", str(folder), "--seconds", "600"]
    rc, out, err = interrupt_when(argv, "chunk 1,", tmp_path)
    assert rc == 130, err[-2000:]
    assert "interrupted: campaign stopped" in err
    progress = load_campaign(folder / "campaign.npz").progress
    assert progress["chunks"] >= 1 and progress["curve"][-1]["decisions"] == progress["decisions"]
