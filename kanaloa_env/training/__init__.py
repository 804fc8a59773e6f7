"""What the training scripts (examples/) share, by concern:

- `kanaloa_env.training.interrupt`: Ctrl-C stops a run cleanly and keeps what it
  trained (`GracefulStop`, `run_script`, `INTERRUPTED_EXIT`);
- `kanaloa_env.training.cli`: their parser and common options (`script_parser`,
  `layer_sizes`, `parse_layer_sizes`, `require`, `add_rollout_options`,
  `add_loss_options`);
- `kanaloa_env.training.records`: their log, evaluation table and learning curve
  (`file_log`, `write_csv`, `win_rate_columns`, `plot_win_rates`, `save_figure`);
- `kanaloa_env.training.store`: `ObservationStore`, millions of observations in a
  quarter of float32's memory;
- `kanaloa_env.training.labels`: search labels of heuristic self-play and their chunk
  files (`LabelJob`, `label_chunks`, `read_chunk`, `replay_chunk`, ...);
- `kanaloa_env.training.distil`: the search distilled into a policy network
  (`DistilSettings`, `distil`, `load_decisions`, `train`, ...);
- `kanaloa_env.training.ppo`: PPO on torch for the batched-engine and GPU scripts
  (`add_ppo_options`, `make_nets`, `sample_actions`, `ppo_update`, checkpoints,
  `save_actor_policy`, `stream_seed`);
- `kanaloa_env.training.sb3`: the stable-baselines3 scripts' periodic callback,
  evaluation row and saved run (`periodic_callback`, `Every`, `evaluation_row`,
  `save_run`).

The names below are importable from `kanaloa_env.training` itself. None of these
modules imports torch, stable-baselines3 or matplotlib before a function needs it.

```python
from kanaloa_env.training import GracefulStop, run_script

def main():
    with GracefulStop() as stop:         # Ctrl-C now asks the loop to stop
        for update in range(updates):
            if stop.requested:           # a safe point: between two updates
                break
            ...
    model.save(path)                     # what was trained so far
    stop.exit_if_requested({"model": path})   # interrupted: says where, exits 130

if __name__ == "__main__":
    run_script(main)                     # a Ctrl-C anywhere else: one line, exit 130
```
"""

from __future__ import annotations

from kanaloa_env.training.cli import layer_sizes
from kanaloa_env.training.interrupt import INTERRUPTED_EXIT, GracefulStop, run_script
from kanaloa_env.training.records import file_log
from kanaloa_env.training.store import ObservationStore

__all__ = [
    "INTERRUPTED_EXIT",
    "GracefulStop",
    "ObservationStore",
    "file_log",
    "layer_sizes",
    "run_script",
]
