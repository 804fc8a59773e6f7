"""Play one game between bots and draw it: a PNG of one position and a GIF of the whole game.

```
python examples/render_game.py                               # Kanaloa, 4 heuristic bots, seed 0
python examples/render_game.py --players 3 --bots heuristic random random --seed 7 --step 40
python examples/render_game.py --game kahuna --out runs/renders/kahuna --scale 0.5
```

Writes `<out>/position.png` (the position before decision `--step`, default the
middle of the game), `<out>/game.gif` (every position) and `<out>/game.jsonl` (the
game record: `python -m kanaloa_env.replay <out>/game.jsonl` prints it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from PIL import Image

from kanaloa_env.bots import make_bot
from kanaloa_env.games import GAMES, get_game
from kanaloa_env.records import record_bot_game, replay_states
from kanaloa_env.render import render_rgb
from kanaloa_env.render.gif import save_gif


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", choices=sorted(GAMES), default="kanaloa", help="which game")
    ap.add_argument(
        "--out", default=None, help="output folder (created; default runs/renders/<game>)"
    )
    ap.add_argument(
        "--players", type=int, default=None, help="players at the table (Kanaloa 3..5, default 4)"
    )
    ap.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        help="one bot per seat ('random', 'heuristic', a model .zip), or one for all",
    )
    ap.add_argument("--seed", type=int, default=0, help="deal seed (game 0 of that stream)")
    ap.add_argument(
        "--announce", action="store_true", help="Kanaloa's 'announce no tricks' variant"
    )
    ap.add_argument(
        "--step", type=int, default=None, help="which position the PNG shows (default: the middle)"
    )
    ap.add_argument("--seat", type=int, default=None, help="show this seat's hand throughout")
    ap.add_argument("--scale", type=float, default=1.0, help="GIF size factor (default 1.0)")
    ap.add_argument("--frame-ms", type=int, default=700, help="GIF milliseconds per frame")
    ap.add_argument(
        "--every", type=int, default=1, help="GIF: keep every N-th position (the last always)"
    )
    args = ap.parse_args(argv)

    game = get_game(args.game)
    try:
        options = {"nil_announcement": True} if args.announce else {}
        config = game.make_config(num_players=args.players, **options)
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    players = game.num_players_of(config)
    if len(args.bots) not in (1, players):
        ap.error(f"--bots takes 1 or {players} bots, got {len(args.bots)}")
    specs = args.bots * players if len(args.bots) == 1 else args.bots
    try:
        bots = [make_bot(s, game) for s in specs]
    except (TypeError, ValueError) as e:
        ap.error(str(e))

    out = args.out or os.path.join("runs", "renders", game.name)
    os.makedirs(out, exist_ok=True)
    record = record_bot_game(config, bots, seed=args.seed)
    states = replay_states(record)
    winner = record.result["winner"] if record.result else None
    print(f"played {len(record.decisions)} decisions; winner: player {winner}")

    k = len(states) // 2 if args.step is None else args.step
    if not 0 <= k < len(states):
        ap.error(f"--step must be in 0..{len(states) - 1} for this game")
    png = os.path.join(out, "position.png")
    Image.fromarray(render_rgb(states[k], seat=args.seat)).save(png)
    print(f"wrote {png} (position before decision {k})")

    t0 = time.perf_counter()
    gif = os.path.join(out, "game.gif")
    if args.every < 1:
        ap.error("--every must be >= 1")
    frames = states[:: args.every] + ([states[-1]] if (len(states) - 1) % args.every else [])
    n = save_gif(frames, gif, seat=args.seat, frame_ms=args.frame_ms, scale=args.scale)
    print(f"wrote {gif} ({n} frames in {time.perf_counter() - t0:.1f} s)")

    jsonl = os.path.join(out, "game.jsonl")
    record.save(jsonl)
    print(f"wrote {jsonl} (replay: python -m kanaloa_env.replay {jsonl})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
