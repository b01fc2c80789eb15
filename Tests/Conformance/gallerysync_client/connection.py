"""One TCP connection to a node (protocol.md sections 3, 4, 4.2, 10): the handshake, records sealed
and opened, frames inside them, heartbeats while waiting, and the node's errors."""

import secrets
import socket
import struct
import time

from .checking import Mismatch, check
from .primitives import OpenFailed, space_psk
from .noise import Handshake, RecordSealer
from .frames import Malformed, frame
from .messages import (ERROR_NAMES, KNOWN_TYPES, T_ERROR, T_HEARTBEAT, T_IDENTITY, T_NOISE, T_RECORD, decode_payload,
    encode_payload, hello_frame, prologue_for)


class NodeClosed(Exception):
    pass


class NodeError(Exception):
    """The node sent `error` (sealed or clear)."""

    def __init__(self, code, message, sealed):
        super().__init__(f"error {ERROR_NAMES.get(code, code)} ({code}) {'sealed' if sealed else 'in the clear'}: {message}")
        self.code, self.message, self.sealed = code, message, sealed


class Connection:
    def __init__(self, host, port, secret, static=None, name="independent", replica=None, max_frame=65536, psk=None):
        self.host, self.port = host, port
        self.secret = secret
        self.psk = psk if psk is not None else space_psk(secret)
        self.static = static or secrets.token_bytes(32)
        self.name = name
        self.replica = replica if replica is not None else secrets.randbits(64)
        self.max_frame = max_frame
        self.sock = None
        self.skipped_types = set()   # ignorable frame types received that this client does not know
        self.inbuf = bytearray()
        self.plain = bytearray()
        self.queue = []
        self.sealed_in = False
        self.last_send = time.time()
        self.peer_identity = None
        self.records_sent = 0

    # Raw I/O.
    def _send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as failure:
            raise NodeClosed(f"the node closed the connection while this client was writing: {failure}")
        self.last_send = time.time()

    def _clear_frame(self, deadline, limit):
        while True:
            if len(self.inbuf) >= 6:
                length, frame_type, flags = struct.unpack("<IBB", self.inbuf[:6])
                if length > limit:
                    raise Mismatch(f"the node sent a clear frame of type {frame_type:#x} announcing {length} bytes (limit {limit})")
                if len(self.inbuf) >= 6 + length:
                    payload = bytes(self.inbuf[6:6 + length])
                    del self.inbuf[:6 + length]
                    return frame_type, flags, payload
            now = time.time()
            if now >= deadline:
                raise TimeoutError("no frame from the node in time")
            if self.sealed_in or self.peer_identity is not None:
                if now - self.last_send >= 1.0:
                    self.send_frame(T_HEARTBEAT, b"")
            self.sock.settimeout(max(0.01, min(0.25, deadline - now)))
            try:
                data = self.sock.recv(262144)
            except socket.timeout:
                continue
            except ConnectionResetError:
                raise NodeClosed("connection reset")
            if not data:
                raise NodeClosed("connection closed by the node")
            self.inbuf += data

    # Handshake (section 4).
    def connect(self, timeout=5.0):
        self.sock = socket.create_connection((self.host, self.port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self

    def handshake(self, timeout=5.0, then=()):
        """The handshake; `then`: (type, message) frames sealed and written together with message 3."""
        if self.sock is None:
            self.connect()
        deadline = time.time() + timeout
        hello = hello_frame()
        self.hs = Handshake(True, self.static, self.psk, prologue_for(hello))
        self._send(hello + frame(T_NOISE, self.hs.write_message1()))
        frame_type, _, payload = self._clear_frame(deadline, 4096)
        if frame_type == T_ERROR:
            m = decode_payload(T_ERROR, payload)
            raise NodeError(m["code"], m["message"], False)
        check(frame_type == T_NOISE, f"the server answered message 1 with frame type {frame_type:#x}")
        self.hs.read_message2(payload)
        self.server_static = self.hs.rs
        message3 = self.hs.write_message3()
        send_key, receive_key = self.hs.keys()
        self.sealer, self.opener = RecordSealer(send_key), RecordSealer(receive_key)
        self.sealed_in = True
        out = frame(T_NOISE, message3)
        for frame_type, message in [(T_IDENTITY, {"version": 4, "replica": self.replica, "max_frame": self.max_frame,
                                                  "name": self.name})] + list(then):
            out += self.seal_frames(frame(frame_type, encode_payload(frame_type, message)))
        self._send(out)
        return self

    def await_identity(self, timeout=5.0):
        frame_type, flags, m = self.recv(timeout)
        check(frame_type == T_IDENTITY, f"the node's first sealed frame is {frame_type:#x}, not identity")
        self.peer_identity = m
        return m

    # Records (section 4.2).
    def seal_frames(self, data, corrupt=False):
        out = b""
        for i in range(0, len(data), 65519):
            sealed = self.sealer.seal(data[i:i + 65519])
            if corrupt:
                sealed = bytearray(sealed)
                sealed[len(sealed) // 2] ^= 0x04
                sealed = bytes(sealed)
            out += frame(T_RECORD, sealed)
            self.records_sent += 1
        return out

    def send_raw_frames(self, data, corrupt=False):
        self._send(self.seal_frames(data, corrupt))

    def send_frame(self, frame_type, payload, flags=0):
        self.send_raw_frames(frame(frame_type, payload, flags))

    def send(self, frame_type, message, flags=0):
        self.send_frame(frame_type, encode_payload(frame_type, message), flags)

    def recv_raw(self, timeout):
        """The next frame inside the records: (type, flags, payload). A clear `error` is raised."""
        deadline = time.time() + timeout
        while True:
            if len(self.plain) >= 6:
                length, frame_type, flags = struct.unpack("<IBB", self.plain[:6])
                if length > self.max_frame:
                    raise Mismatch(f"the node sent a frame of {length} payload bytes, over my max_frame {self.max_frame}")
                if len(self.plain) >= 6 + length:
                    payload = bytes(self.plain[6:6 + length])
                    del self.plain[:6 + length]
                    return frame_type, flags, payload
            frame_type, flags, payload = self._clear_frame(deadline, 65535)
            if frame_type == T_RECORD:
                check(flags == 0, f"record frame with flags {flags:#x}")
                check(16 <= len(payload) <= 65535, f"record of {len(payload)} bytes")
                try:
                    self.plain += self.opener.open(payload)
                except OpenFailed as failure:
                    raise Mismatch(f"a record from the node does not open: {failure}")
            elif frame_type == T_ERROR and self.peer_identity is None:
                m = decode_payload(T_ERROR, payload)
                raise NodeError(m["code"], m["message"], False)
            else:
                raise Mismatch(f"an unsealed frame of type {frame_type:#x} after the handshake")

    def recv(self, timeout):
        while True:
            frame_type, flags, payload = self.recv_raw(timeout)
            check(flags & ~1 == 0, f"the node sent frame {frame_type:#x} with reserved flag bits {flags:#x}")
            if frame_type in KNOWN_TYPES or not flags & 1:
                break
            self.skipped_types.add(frame_type)   # an ignorable frame of a type this client does not know
        try:
            m = decode_payload(frame_type, payload)
        except Malformed as failure:
            raise Mismatch(f"frame {frame_type:#x} from the node does not decode: {failure}: {payload.hex()}")
        if frame_type == T_ERROR:
            raise NodeError(m["code"], m["message"], True)
        return frame_type, flags, m

    def expect_close(self, timeout=5.0):
        """Reads until the node closes; returns the error it sent first, if any."""
        error = None
        deadline = time.time() + timeout
        while True:
            try:
                self.recv(max(0.01, deadline - time.time()))
            except NodeError as e:
                error = error or e
            except NodeClosed:
                return error
            except TimeoutError:
                raise Mismatch(f"the node kept the connection open {timeout} s (error so far: {error})")

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None
