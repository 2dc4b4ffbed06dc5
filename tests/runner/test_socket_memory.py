"""The watchdog's count of bytes queued in a sandbox's sockets reads a protocol's table only when the
namespace's sockstat says that protocol has a socket: the tables cost milliseconds a read, sockstat nothing."""

from __future__ import annotations

from runner.sandbox import memory

SOCKSTAT = b"sockets: used 5\nTCP: inuse %d orphan 0 tw 0 alloc 3 mem 1\nUDP: inuse %d mem 0\n"
SOCKSTAT6 = b"TCP6: inuse %d\nUDP6: inuse %d\n"
HEADER = b"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
# One established connection (state 01) with 0x100 bytes sent and unacknowledged, 0x20 received and unread;
# and a listening socket (0A), whose queue fields count connections, not bytes.
TCP_TABLE = HEADER + (b"   0: 0100007F:9C40 0100007F:D431 01 00000100:00000020 00:00000000 00000000 0 0 1\n"
                      b"   1: 0100007F:9C41 00000000:0000 0A 00000000:00000005 00:00000000 00000000 0 0 2\n")


class View:
    """A namespace's procfs as the watchdog reads it, recording which files it asked for."""

    def __init__(self, files: dict[str, bytes | None]):
        self.files, self.asked = files, []

    def read(self, relative: str) -> bytes | None:
        self.asked.append(relative)
        return self.files.get(relative)


def tables(tcp=0, udp=0, tcp6=0, udp6=0) -> dict[str, bytes]:
    return {"1/net/sockstat": SOCKSTAT % (tcp, udp), "1/net/sockstat6": SOCKSTAT6 % (tcp6, udp6),
            "1/net/tcp": TCP_TABLE, "1/net/tcp6": HEADER, "1/net/udp": HEADER, "1/net/udp6": HEADER}


def test_a_namespace_without_sockets_costs_two_sockstat_reads():
    view = View(tables())
    assert memory.socket_queue_bytes(view) == 0
    assert view.asked == ["1/net/sockstat", "1/net/sockstat6"]


def test_only_the_tables_of_protocols_in_use_are_read_and_their_queues_counted():
    view = View(tables(tcp=2))
    assert memory.socket_queue_bytes(view) == 0x100 + 0x20
    assert view.asked == ["1/net/sockstat", "1/net/sockstat6", "1/net/tcp"]


def test_every_table_is_read_when_sockstat_cannot_be():
    files = {**tables(), "1/net/sockstat": None, "1/net/sockstat6": b"garbled"}
    view = View(files)
    assert memory.socket_queue_bytes(view) == 0x100 + 0x20
    assert view.asked[2:] == [f"1/net/{table}" for table in memory.SOCKET_TABLES]
