"""Play one game between bots and draw it: a PNG of one position and a GIF of the whole game.

```
python examples/render_game.py --out renders/                # 4 heuristic bots, seed 0
python examples/render_game.py --players 3 --bots heuristic random random --seed 7 --step 40
python examples/render_game.py --out renders/ --scale 0.5 --fast   # smaller, quicker
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

from kanaloa_env.bots import make_bot
from kanaloa_env.core import Config
from kanaloa_env.records import record_bot_game, replay_states
from kanaloa_env.render.image import render_image, save_gif


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="renders", help="output folder (created; default renders/)")
    ap.add_argument("--players", type=int, default=4, help="players at the table, 3..5")
    ap.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        help="one bot per seat ('random', 'heuristic', a model .zip), or one for all",
    )
    ap.add_argument("--seed", type=int, default=0, help="deal seed (game 0 of that stream)")
    ap.add_argument("--announce", action="store_true", help="the 'announce no tricks' variant")
    ap.add_argument(
        "--step", type=int, default=None, help="which position the PNG shows (default: the middle)"
    )
    ap.add_argument("--seat", type=int, default=None, help="show this seat's hand throughout")
    ap.add_argument("--scale", type=float, default=1.0, help="GIF size factor (default 1.0)")
    ap.add_argument("--frame-ms", type=int, default=700, help="GIF milliseconds per frame")
    ap.add_argument("--fast", action="store_true", help="GIF without supersampling (2x faster)")
    ap.add_argument(
        "--every", type=int, default=1, help="GIF: keep every N-th position (the last always)"
    )
    args = ap.parse_args(argv)

    if len(args.bots) not in (1, args.players):
        ap.error(f"--bots takes 1 or {args.players} bots, got {len(args.bots)}")
    specs = args.bots * args.players if len(args.bots) == 1 else args.bots
    try:
        config = Config(num_players=args.players, nil_announcement=args.announce)
        bots = [make_bot(s) for s in specs]
    except (TypeError, ValueError) as e:
        ap.error(str(e))

    os.makedirs(args.out, exist_ok=True)
    record = record_bot_game(config, bots, seed=args.seed)
    states = replay_states(record)
    winner = record.result["winner"] if record.result else None
    print(f"played {len(record.decisions)} decisions; winner: player {winner}")

    k = len(states) // 2 if args.step is None else args.step
    if not 0 <= k < len(states):
        ap.error(f"--step must be in 0..{len(states) - 1} for this game")
    png = os.path.join(args.out, "position.png")
    render_image(states[k], seat=args.seat).save(png)
    print(f"wrote {png} (position before decision {k})")

    t0 = time.perf_counter()
    gif = os.path.join(args.out, "game.gif")
    if args.every < 1:
        ap.error("--every must be >= 1")
    frames = states[:: args.every] + ([states[-1]] if (len(states) - 1) % args.every else [])
    n = save_gif(
        frames,
        gif,
        seat=args.seat,
        frame_ms=args.frame_ms,
        scale=args.scale,
        supersample=1 if args.fast else 2,
    )
    print(f"wrote {gif} ({n} frames in {time.perf_counter() - t0:.1f} s)")

    jsonl = os.path.join(args.out, "game.jsonl")
    record.save(jsonl)
    print(f"wrote {jsonl} (replay: python -m kanaloa_env.replay {jsonl})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
