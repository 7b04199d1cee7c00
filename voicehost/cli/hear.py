"""`voicehost hear`: what the host understands from recordings (or the microphone), without a game."""

from __future__ import annotations

import argparse
import sys

from engine.characters import shown
from voicehost.cli.failures import EXIT_OK, UserError
from voicehost.cli.hearing import judge_files, moment_of, verdict
from voicehost.cli.setup import read_board
from voicehost.decision import unfinished
from voicehost.ears.recognizers import make_ears, make_recognizer
from voicehost.frontends.devices import microphone_chunks, what_went_wrong
from voicehost.frontends.voice_loop import whole_move
from voicehost.speech_models.choice import choose_engine


def command_hear(args: argparse.Namespace) -> int:
    if not args.wavs and not args.mic:
        raise UserError("give one or more WAV files, or --mic")
    if args.wavs and args.mic:
        raise UserError("give WAV files or --mic, not both")
    board = read_board(args.board)
    choice = choose_engine(args.engine, args.model, board.lang)
    if choice.note:
        print(choice.note, file=sys.stderr)
    if args.mic:
        ears = make_ears(choice.engine, choice.model_dir)
        chunks, microphone = microphone_chunks(
            lambda lost: print(f"voicehost: {lost}", file=sys.stderr),
            lambda: None,
            lambda exc: f"{what_went_wrong(exc)} Give WAV files instead.",
        )
        try:
            moment = moment_of(board, args.phase)
            utterances = ears.utterances(chunks, lambda: moment, unfinished, whole_move)  # cut as the host's are
            for index, heard in enumerate(utterances, 1):
                said = verdict(heard, moment, f"utterance {index}")
                print(shown(said.json() if args.json else said.line()), flush=True)
        except KeyboardInterrupt:
            pass
        finally:
            microphone.close()
        return EXIT_OK
    recognizer = make_recognizer(choice.engine, choice.model_dir)
    for said in judge_files(recognizer, board, args.phase, args.wavs):
        print(shown(said.json() if args.json else said.line()), flush=True)
    return EXIT_OK
