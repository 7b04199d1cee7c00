"""Sound as numbers, below the ears and the mouth: the one sample format, WAV files, rate conversion and the
16-bit PCM of devices and satellites. Nothing here knows about a game: no module of this package imports
the ears, the mouth, the referee or the decision."""
