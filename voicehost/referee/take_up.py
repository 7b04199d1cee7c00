"""Taking up one utterance: what it means and whether the host acts on it, asks it back, or lets it be.

One pure step, shared by the host (`Host.hear`), `voicehost hear` and the bench, so that what they
measure is what the host does. In order: the form (`form_of`: said to the host or not, talk or a move),
the host's name the transcript left out (`Heard.name_gain`) or wrote a letter away (`name_slip`), the
words read once (`Reading`), the decision (`voicehost.decision.decide`), the attention verdict
(`attend`) and the hedge (`hedged`: a move asked back is never acted on at once).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from voicehost.decision import calibration, decide
from voicehost.decision.cards import UNCLEAR_SHARE
from voicehost.ears.heard import Heard
from voicehost.referee.attention import Attention, attend, hedged
from voicehost.understanding import (
    Action,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    NotUnderstood,
    Understanding,
    match_card,
)
from voicehost.understanding.clues import correction_in
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.positions import place_words
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import HeardCorrection, HeardSide
from voicehost.understanding.sides import side_first
from voicehost.understanding.talk import Form, content_words, form_of, is_host_name, name_slip


@dataclass(frozen=True)
class TakenUp:
    """What the host makes of one utterance."""

    heard: Heard  # the utterance as the ears heard it
    form: Form
    reading: Reading  # the move's words (the host's name taken off), read once
    understood: Understanding  # hedged when `hedge`
    verdict: Attention
    hedge: bool  # asked back, never acted on at once
    named: Attention | None  # the ears heard the host's name the transcript left out: surely (TAKE), likely (ASK_BACK)

    @property
    def whole_move(self) -> bool:
        """A move complete in itself that the host acts on at once ("cereja", "music, two", "yes" to a
        question): nothing more is coming, so the ears may close the utterance after a short silence. A move
        asked back is not one: "I think it's ..." may be a lead-in the scores half heard as a card. Where moves
        count only said to the host, a line without the name is not one either, though a read-only command
        is taken so: "apresentador" alone, heard as "score", would cut "apresentador, cometa" in two."""
        moment = self.reading.moment
        if moment.listening is ListenMode.ADDRESSED and not (self.form.addressed or moment.asked):
            return False
        return (
            self.verdict is Attention.TAKE
            and self.understood.action is Action.ACCEPT
            and isinstance(self.understood, HeardGuess | HeardClue | HeardCommand | HeardCorrection)
        )


def take_up(heard: Heard, moment: Moment) -> TakenUp:
    """The form, the name, the decision, the verdict and the hedge of one utterance heard at `moment`."""
    # the host's name written and nothing after it (held for the move, none came): whatever the scores make
    # of the name's own sound is no move ("apresentador" scored "pontuação" 0.59 read the score out); a word
    # the name's reading takes that is no name ("post-present") may still hold the move
    name_alone = is_host_name(heard.text, moment.lang, moment.host_names)
    form = form_of(heard.text, moment.lang, moment.host_names)
    named, name_words = (None, 0) if form.addressed else name_unwritten(heard, moment)
    if named is not None:  # the name was said, though the transcript left it out or garbled it
        said = " ".join(heard.text.split()[name_words:])  # "FOST, music 2": the clue is music, 2
        rest = form_of(said, moment.lang, moment.host_names)  # "Aprementa-lo, impresoga": the name's garble is no talk
        if rest.talk:
            named = None  # talk after something like the name is still talk
        else:
            form = replace(rest, text=said, addressed=True)
    text = form.text if (named is not None or form.addressed) else heard.text
    first = side_first(text, moment.lang) if moment.sides else None  # "A: touro, dois"
    reading = Reading(first[1] if first else text, moment, heard.confidence, first[0] if first else None)
    heard = replace(heard, text=reading.text)  # the scores were of the whole utterance, name and all
    if name_alone:
        understood: Understanding = NotUnderstood(heard.text, Action.REPROMPT, 0.0)
    else:
        understood = correction(reading) or decide(heard, reading)
    if reading.side is not None and reading.claimed is None and not isinstance(understood, HeardCommand):
        understood = HeardSide(reading.text, Action.ACCEPT, 1.0, reading.side.value)  # "A", "player B"
    if moment.guessing and isinstance(reading.said, HeardClue) and not isinstance(understood, HeardClue | HeardCommand):
        # a clue-shaped line weighed as a guess (no clue can be given now): its number is a word of it, and
        # "I mean it could be the thung dispunge for." is talk, not "dispunge, 4"
        form = replace(form, talk=form_of(heard.text, moment.lang, moment.host_names, clue_shapes=False).talk)
    if isinstance(understood, HeardClue) and heard.numbers is not None:
        # a clue heard through its number's scores is judged on the words as understood ("città 2"), not
        # on the garbled transcript ("città tu e")
        form = replace(form, talk=form_of(understood.heard, moment.lang, moment.host_names).talk)
    sure = sure_unworded(understood, reading)  # of the words and the scores only: the form does not change it
    a_place = isinstance(understood, HeardGuess) and bool(understood.place)
    if a_place and form.talk and (_a_place_said(reading) or (sure and "?" not in reading.text)):
        # "C₂. C₁. C", "R3 Column 4": a place Whisper wrote out again or garbled; "Round one calling 1.": a place
        # the scores are sure of, in a place's few words (a question about one stays talk: "R3 column 4?")
        form = replace(form, talk=False)
    if named is Attention.ASK_BACK and isinstance(understood, NotUnderstood):
        form = replace(form, addressed=False)  # likely said to the host, but nothing to ask back about
    if isinstance(understood, HeardCommand):
        # "Host, is OCEAN allowed?" is a request, not talk; "Saier do jogo." is "sair do jogo" garbled: a
        # command is read from the whole line (its phrase, or a slip from it), never from inside talk
        form = replace(form, talk=False)
    if isinstance(understood, HeardCorrection | HeardSide):
        form = replace(form, talk=False)  # "no, fruit": the spymaster correcting the clue; "player A": no talk
    denied_again = (form.talk or isinstance(understood, NotUnderstood)) and _denied_again(heard, reading)
    if form.talk and denied_again:
        form = replace(form, talk=False)  # "Eu não posto." taken up as "passo?" and denied: still a move, heard again
    # "Fim." for "orelha", just asked back as "Fim?" and denied, then heard so again: no silence for it
    move_shaped = _move_shaped(form, understood, reading) or (denied_again and isinstance(understood, NotUnderstood))
    verdict = attend(
        form,
        understood,
        listening=moment.listening,
        guessing=moment.guessing,
        answering=moment.asked,
        lone_card=_lone_card(understood, reading),
        worded=worded(understood, reading),
        sure_unworded=sure,
        move_shaped=move_shaped,
    )
    if named is Attention.ASK_BACK and verdict is Attention.IGNORE and move_shaped:
        verdict = Attention.SORRY  # likely said to the host, and like a move: the player must know it was heard
    if verdict is Attention.IGNORE and repeats_let_be(reading):
        verdict = Attention.SORRY  # the same garble again: someone waits for the host, who must say it heard them
    if verdict is Attention.IGNORE and card_in_talk(form, understood, reading):
        verdict = Attention.ASK_BACK  # "and generally I am the main problem." scored ENGINEER: "ENGINEER?"
    hedge = verdict is Attention.ASK_BACK or (named is Attention.ASK_BACK and verdict is Attention.TAKE)
    return TakenUp(heard, form, reading, hedged(understood) if hedge else understood, verdict, hedge, named)


MIN_REPEATED_WORDS: Final = 3
"""A line says the one just let be again when it has at least this many distinct words that could name
something, and either line's words are all in the other: a sentence said twice in a row, word for word
but for what the noise changed. Fewer would take "I don't know ... I don't know", thinking aloud, for it."""


def repeats_let_be(reading: Reading) -> bool:
    """Whether the line says again the line the host just met with silence or "Sorry?" (`Moment.let_be_text`),
    in the open way with nothing asked. A player met with silence says the move again, and Whisper writes the
    same garble each time (MBROLA pt1's "janela, dois", four times "que se tinha, que se havia", read as talk
    and met with silence four times): the same sentence twice in a row is said to the host, and the table
    must know the host heard it. Table talk seldom repeats itself word for word."""
    moment = reading.moment
    if not moment.let_be_text or moment.asked or moment.over_host or moment.listening is not ListenMode.OPEN:
        return False
    now = set(content_words(reading.text, moment.lang))
    before = set(content_words(moment.let_be_text, moment.lang))
    shorter, longer = sorted((now, before), key=len)
    return len(shorter) >= MIN_REPEATED_WORDS and shorter <= longer


def _denied_again(heard: Heard, reading: Reading) -> bool:
    """Whether the line, but for what the table answered "no" to (`Moment.denied`), is that very move again:
    the host took it up as a move before ("passo?", a command read from the whole line), so it is no talk
    now that the scores' next card is weighed instead."""
    moment = reading.moment
    if not (moment.denied or moment.denied_commands):
        return False
    before = decide(heard, reading.again(replace(moment, denied=(), denied_commands=())))
    if isinstance(before, HeardCommand):
        return before.command in moment.denied_commands
    return isinstance(before, HeardGuess) and before.card in moment.denied


def correction(reading: Reading) -> HeardCorrection | None:
    """The spymaster correcting the clue just given ("no, fruit"), when a correction may come now."""
    if not reading.moment.correctable or reading.moment.over_host:
        return None
    return correction_in(reading.text, reading.moment.lang)


def heard_afresh(taken: TakenUp, moment: Moment) -> Understanding:
    """The utterance read again against every visible card, no question asked (it was no answer to one),
    hedged as it was the first time. A card its words do not name exactly is asked back, never acted on
    at once: the line came when an answer was awaited, and "sim" in a din came out "Siena", a slip from
    HIENA that the scores put first at 0.99, and HIENA was revealed; a card its words name ("hospital"
    at "CEREJA?") is acted on as ever."""
    reading = taken.reading.again(moment.afresh())
    understood = decide(taken.heard, reading)
    plainly = reading.plainly
    unnamed = isinstance(understood, HeardGuess) and not (
        isinstance(plainly, HeardGuess) and plainly.card == understood.card
    )
    return hedged(understood) if taken.hedge or unnamed else understood


def unclear_answer(taken: TakenUp, understood: Understanding) -> bool:
    """Whether an utterance heard while a yes-or-no question waits was an answer half heard ("sim" come
    out "XIN"), or a move said over the question that the host could not read: a short line
    (`MAX_MOVE_WORDS`), no talk, and no other move read in it even against every card (`understood`, heard
    afresh). The question is then asked once more rather than dropped: in a babble game the others' talk
    was asked back as "Clue: drop, 5?", the spymaster's "garden, two" came out "Garden to me." and dropped
    it, and the spymaster's "no" to it met silence. A lone word read as "quit" is one too: in an English babble
    game a "yes" came out "Bye.", "Quit now?" replaced the question, and the room's "Yes." ended the game."""
    words = taken.reading.text.split()
    if isinstance(understood, HeardCommand) and understood.command is Command.QUIT:
        return len(words) == 1
    if taken.form.talk or not isinstance(understood, NotUnderstood):
        return False
    return 0 < len(words) <= MAX_MOVE_WORDS


def name_unwritten(heard: Heard, moment: Moment) -> tuple[Attention | None, int]:
    """Whether the host's name was said though the transcript does not write it (`name_heard`), or writes it
    a letter away ("Post sheriff": `name_slip`), and how many first words are the name. A slip is asked
    back, unless the ears' gain says the name too, from the point calibrated for slips (`name_slip`): the
    words and the scores agree."""
    named = name_heard(heard)
    if named is Attention.TAKE:
        return named, heard.name_words
    slip = name_slip(heard.text, moment.lang, moment.host_names)
    if not slip:
        return named, heard.name_words
    sure = heard.name_gain is not None and heard.name_gain >= calibration().name_slip
    words = heard.name_words if named is not None else slip  # the gain's own reading of where the name ends
    return (Attention.TAKE if sure else Attention.ASK_BACK), words


def name_heard(heard: Heard) -> Attention | None:
    """Whether the ears heard the host's name the transcript left out (`Heard.name_gain`, at the points
    calibrated on the tuning voices): TAKE when surely, ASK_BACK when likely (the move is asked back, never
    acted on at once), None when not."""
    gain, points = heard.name_gain, calibration()
    if gain is None or gain < points.name_ask:
        return None
    return Attention.TAKE if gain >= points.name_gain else Attention.ASK_BACK


MAX_MOVE_WORDS = 3
"""A line of this many words or fewer, not talk and naming nothing the host knows, may still be a move it
misheard ("lasanha" half heard, "animals, thre", an unknown word): the table hears "Sorry?". Heard by the
ears, only while a clue is awaited: held-out lines heard then, clues with a garbled number ("Garten Nein"
for "garden, nine", "papel nero") met silence 30 of 154 times in a quiet room and 102 in babble, 22 and
46 of them so short; table talk so short, 3 and 4 of 224 (the share of talk other "Sorry?"s allow: one
line in fifty). While a team guesses, the cards' scores say which short lines came near a move."""

MIN_HEARD_CLUE_WORDS = 2
"""A line heard while a clue is awaited is answered "Sorry?" from this many words: a clue is a word and a
number. Of the held-out clues so answered, 20 of 22 in a quiet room and 41 of 46 in babble have two or
more; every line of talk so answered has two too, but the room's talk does not ("I'm sorry.", a scrap of
the others' talk in a babble game, met "Sorry?" and cut into the clue's announcement)."""


def _move_shaped(form: Form, understood: Understanding, reading: Reading) -> bool:
    """Whether a line the host did not understand still has the form of a move, so it must not meet silence:
    its words come near a card of the board (covered ones too), or the scores gave a card half the chance
    they need to ask back, or it is a short line of real words (a card or a clue the host could not read),
    typed, or heard while a clue is awaited (no card's scores can tell a clue half heard from talk then).
    (Once the game is over, a line the scores put near "new game" or "quit" is one too: `take_up`.)"""
    if form.talk or not isinstance(understood, NotUnderstood):
        return False
    words = content_words(reading.text, reading.moment.lang)
    if not words:
        return False  # "yes" with nothing asked, "hmm": no word of it could name a move
    moment = reading.moment
    if match_card(reading.text, moment.board, moment.lang):
        return True
    if reading.confidence is not None and understood.confidence >= UNCLEAR_SHARE * calibration().ask:
        return True
    if reading.confidence is None:
        return len(words) <= MAX_MOVE_WORDS
    # heard: a clue's word and its number are two words; one alone is a clue word waiting for its number,
    # read as such, or a scrap of the room's talk ("I'm sorry." in babble, answered "Sorry?")
    return moment.awaited is Awaited.CLUE and MIN_HEARD_CLUE_WORDS <= len(words) <= MAX_MOVE_WORDS


def worded(understood: Understanding, reading: Reading) -> bool:
    """Whether the words heard, read as typed, name the card understood (the ears may have found it
    in the scores alone, from speech whose transcript names nothing)."""
    if not isinstance(understood, HeardGuess):
        return True
    typed = reading.typed
    return isinstance(typed, HeardGuess) and typed.card == understood.card


def unworded_card(understood: Understanding, reading: Reading) -> bool:
    """Whether the line is a card by name the scores alone found, in words that read as no other move and right
    after no "no": the lines `Calibration.unworded_act` is chosen on. Words that said a command ("End turn."
    just denied as a pass) or a table that just said "no" are asked back, whatever the scores."""
    return (
        isinstance(understood, HeardGuess)
        and not understood.place
        and not isinstance(reading.said, HeardClue)
        and _scores_alone(understood, reading)
    )


def unworded_place(understood: Understanding, reading: Reading) -> bool:
    """Whether the line is a card by its place the scores alone found ("Rho 4 column 5.", "Besinco" for "bê
    cinco"), in words that read as no command and right after no "no": the lines `Calibration.place_unworded_act`
    is chosen on. A place ends in a number, so its garbled words often read as a clue ("rho 4 column, 5")."""
    return isinstance(understood, HeardGuess) and bool(understood.place) and _scores_alone(understood, reading)


def _scores_alone(understood: Understanding, reading: Reading) -> bool:
    """A card the words do not name, in words that read as no command, and no "no" just said."""
    moment = reading.moment
    return (
        not worded(understood, reading)
        and not isinstance(reading.said, HeardCommand)
        and not (moment.denied or moment.denied_commands)
    )


def sure_unworded(understood: Understanding, reading: Reading) -> bool:
    """Whether a card found only by the scores, by its name (`unworded_card`) or its place (`unworded_place`),
    is one the open way acts on at once: as sure as its point (`Calibration.unworded_act`,
    `place_unworded_act`) and in no more words than its point's (a move said, not a sentence of talk that
    slips into a card's sound), both chosen on the tuning voices' moves and table talk."""
    model = calibration()
    if unworded_card(understood, reading):
        act, most = model.unworded_act, model.unworded_words
    elif unworded_place(understood, reading):
        act, most = model.place_unworded_act, model.place_unworded_words
    else:
        return False
    return act is not None and understood.confidence >= act and len(reading.text.split()) <= most


def card_in_talk(form: Form, understood: Understanding, reading: Reading) -> bool:
    """Whether a line whose words read as talk is still asked back as the card its scores found: in the open
    way while a team guesses, with nothing asked, a card the words do not name (`unworded_card`) as sure as
    `Calibration.talk_ask`, in at most `talk_ask_words` words. Over the others' talk Whisper writes their
    words for a player's card ("Heart and chest." for "cottage") while the scores still find it; the point
    is chosen on the tuning voices' cards and table talk (`bench.calibrate_unworded.talk_ask_point`), so
    that real talk is seldom asked about."""
    moment = reading.moment
    model = calibration()
    return (
        model.talk_ask is not None
        and form.talk
        and not form.addressed
        and moment.listening is ListenMode.OPEN
        and moment.guessing
        and not moment.asked
        and unworded_card(understood, reading)
        and understood.confidence >= model.talk_ask
        and len(reading.text.split()) <= model.talk_ask_words
    )


def _lone_card(understood: Understanding, reading: Reading) -> bool:
    """A visible card's name and nothing else, heard while a clue is awaited (it is no clue: a player
    thinking aloud, or an operative ahead of their spymaster)."""
    if not isinstance(understood, HeardClue) or understood.clue.number is not None:
        return False
    typed = reading.typed
    return isinstance(typed, HeardGuess) and typed.action is Action.ACCEPT


MAX_GARBLED_PLACE_WORDS = 1
"""A place's line may have this many words that are no place word ("R3 Column 4", "Rho 3-Column 4",
"2. Rotu column 3": its "row" or "column" garbled) and still be the place the scores found, not talk."""


def _a_place_said(reading: Reading) -> bool:
    """Whether the line is a place said, whatever the count of words, without a question mark: every word a
    way of saying a place (a column's letter, a row's number, "row", "column"), or, beside two of those or
    more, MAX_GARBLED_PLACE_WORDS that names no card."""
    if "?" in reading.text:
        return False
    words = content_words(reading.text, reading.moment.lang)
    known = place_words(reading.moment.lang)
    others = [word for word in words if word not in known]
    if not others:
        return bool(words)
    if len(words) - len(others) < 2 or len(others) > MAX_GARBLED_PLACE_WORDS:
        return False
    moment = reading.moment
    return not any(match_card(word, moment.board, moment.lang) for word in others)
