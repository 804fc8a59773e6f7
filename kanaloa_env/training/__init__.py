"""What the training scripts (examples/) share, by concern:

- `kanaloa_env.training.interrupt`: Ctrl-C stops a run cleanly and keeps what it
  trained (`GracefulStop`, `run_script`, `INTERRUPTED_EXIT`);
- `kanaloa_env.training.cli`: their parser, common options and checks
  (`script_parser`, `layer_sizes`, `parse_layer_sizes`, `require`, `parse_game`,
  `table_size`, `add_*_options`, `check_ppo_options`);
- `kanaloa_env.training.records`: their folder, log, evaluation table and learning
  curve (`start_run`, `run_log`, `file_log`, `write_csv`, `win_rate_columns`,
  `plot_win_rates`, `save_figure`);
- `kanaloa_env.training.store`: `ObservationStore`, millions of observations in a
  quarter of float32's memory;
- `kanaloa_env.training.labels`: search labels of heuristic self-play and their chunk
  files (`LabelJob`, `label_chunks`, `read_chunk`, `replay_chunk`, ...);
- `kanaloa_env.training.distil`: the search distilled into a policy network
  (`DistilSettings`, `distil`, `load_decisions`, `train`, ...);
- `kanaloa_env.training.ppo`: PPO on torch for the batched-engine and GPU scripts
  (`add_ppo_options`, `make_nets`, `sample_actions`, `ppo_update`, checkpoints,
  `save_actor_policy`, `stream_seed`, ...);
- `kanaloa_env.training.sb3`: the stable-baselines3 scripts' model, periodic
  callback, evaluation row and saved run (`maskable_ppo`, `ppo_settings`,
  `periodic_callback`, `Every`, `evaluation_row`, `save_run`).

`GracefulStop`, `run_script`, `INTERRUPTED_EXIT`, `ObservationStore`, `file_log` and
`layer_sizes` are importable from `kanaloa_env.training` itself (the interrupt module
shows a training loop that stops cleanly on Ctrl-C). None of these modules imports
torch, stable-baselines3 or matplotlib before a function needs it.
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
