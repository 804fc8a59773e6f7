"""kanaloa_env: reinforcement-learning environments for the trick-taking game Kanaloa.

The rules live in one batched numpy engine (`kanaloa_env.core`); every interface
is a thin view over it.
"""

__version__ = "0.1.0"
