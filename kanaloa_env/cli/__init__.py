"""The command-line tools: argument parsing and output only.

- `python -m kanaloa_env.arena` (`arena.py`): tournaments with ratings.
- `python -m kanaloa_env.play` (`play.py`): a human at the terminal against bots.
- `python -m kanaloa_env.replay` (`replay.py`): a game record step by step, or as pictures.

`python -m kanaloa_env` (`kanaloa_env/__main__.py`) lists them; every one takes `--game`
as a game's name.
"""
