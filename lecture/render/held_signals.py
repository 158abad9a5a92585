"""Ctrl-C, SIGTERM and SIGHUP held while a block runs, then handled as they would have been.

Python runs its signal handlers in the main thread, whichever thread the kernel hands a signal to. Blocking the
signals in one thread (``pthread_sigmask``) is therefore not enough: another thread takes them and the main
thread's handler still interrupts the block. Here the handlers themselves are swapped, in the main thread, for
ones that only note the signal; when the block ends the old handlers are back and the first noted signal is
raised again, so the process stops with its usual status, after the block and never halfway through it.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def stops_held():
    """Hold the STOPS until the block ends; yields the list of the signals noted meanwhile. A signal ignored
    stays ignored. Outside the main thread no handler can be set and nothing is held: a commit made there is
    kept whole by its journal (see ``lecture.render.commit_journal``)."""
    noted: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = {number: signal.getsignal(number) for number in STOPS}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, lambda number, frame: noted.append(number))
    try:
        yield noted
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if noted:
            signal.raise_signal(noted[0])
