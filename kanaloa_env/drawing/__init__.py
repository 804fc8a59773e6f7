"""Drawing primitives every game's views share, below the games: ANSI colours, line
wrapping and counted nouns (`terminal`), and a supersampled Pillow canvas (`canvas`,
Pillow imported only there).

Nothing here knows a game: each game's `text.py` and `image.py` draw with these, and
`kanaloa_env.render` (above the games) asks a game for its views.
"""
