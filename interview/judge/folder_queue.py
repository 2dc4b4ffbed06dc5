"""The embedded queue's transport: kombu's folder of message files, with the worker woken as a message lands.

kombu's file-system transport finds a message by listing the folder and, when it finds none, sleeps its
`polling_interval` before it looks again, so a Run waited for the next look before a worker even saw it.
This transport waits on inotify instead: the kernel wakes the worker when a file in the messages folder is
closed after writing (how a publisher puts a message there) or moved into it, and an idle worker costs nothing
between messages. It still looks at least every `polling_interval` seconds, so a message whose event was lost
(the kernel's event queue overflowed) is taken all the same. Where inotify is missing (not Linux), the
wait is a plain sleep of `polling_interval`, as in kombu.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from queue import Empty

from kombu.transport import filesystem

try:
    from inotify_simple import INotify, flags
except ImportError:  # not Linux: the wait between looks is a sleep
    INotify = None

# What a message arriving in the folder looks like to inotify: a publisher's file closed after writing, or a
# file moved in (a message given back to the queue).
ARRIVAL = flags.CLOSE_WRITE | flags.MOVED_TO if INotify else 0


class Transport(filesystem.Transport):
    """kombu's file-system transport, its wait for the next message woken by inotify."""

    def __init__(self, client, **kwargs):
        super().__init__(client, **kwargs)
        self._arrivals: INotify | None = None

    def _watch(self) -> INotify | None:
        """The inotify watch on the messages folder, made on the first wait (publishers never wait)."""
        if self._arrivals is None and INotify is not None:
            folder = Path(self.client.transport_options.get("data_folder_in", "data_in"))
            folder.mkdir(parents=True, exist_ok=True)
            self._arrivals = INotify()
            self._arrivals.add_watch(folder, ARRIVAL)
        return self._arrivals

    def drain_events(self, connection, timeout=None):
        """Deliver one message; wait for one to arrive, up to timeout seconds (socket.timeout after them)."""
        started = time.monotonic()
        # Watched before the first look, so a message that lands between a look and the wait wakes the wait.
        arrivals = self._watch()
        while True:
            try:
                self.cycle.get(self._deliver, timeout=timeout)
                return
            except Empty:
                pass
            waited = time.monotonic() - started
            if timeout is not None and waited >= timeout:
                raise socket.timeout()
            wait = self.polling_interval if timeout is None else min(self.polling_interval, timeout - waited)
            if arrivals is None:
                time.sleep(wait)
            else:
                # Returns at the first event, or after wait; reading drains the events, so the next wait waits.
                arrivals.read(timeout=max(1, int(wait * 1000)))

    def close_connection(self, connection):
        super().close_connection(connection)
        if self._arrivals is not None:
            self._arrivals.close()
            self._arrivals = None
