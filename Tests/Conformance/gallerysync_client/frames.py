"""The wire's building blocks (protocol.md sections 1 and 3): varints in their shortest form, zigzag,
length-prefixed strings, a bounds-checked reader, and the 6-byte frame header."""

import struct


def varint(value: int) -> bytes:
    if value < 0 or value >= 1 << 64:
        raise ValueError(f"varint out of range: {value}")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(value: int) -> bytes:
    return varint((value << 1) ^ (value >> 63) if value < 0 else value << 1)


def string(text) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return varint(len(data)) + data


class Malformed(Exception):
    pass


class Reader:
    def __init__(self, data: bytes):
        self.data, self.i = bytes(data), 0

    def take(self, n):
        if self.i + n > len(self.data):
            raise Malformed(f"cut: wanted {n} bytes at {self.i} of {len(self.data)}")
        out = self.data[self.i:self.i + n]
        self.i += n
        return out

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def varint(self):
        value, shift = 0, 0
        for count in range(1, 11):
            byte = self.u8()
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if count > 1 and byte == 0:
                    raise Malformed("varint not in its shortest form")
                if value >= 1 << 64:
                    raise Malformed("varint beyond 64 bits")
                return value
            shift += 7
        raise Malformed("varint longer than 10 bytes")

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def string(self, limit=None):
        n = self.varint()
        if limit is not None and n > limit:
            raise Malformed(f"string of {n} bytes over its bound {limit}")
        return self.take(n).decode("utf-8")

    def rest(self):
        out = self.data[self.i:]
        self.i = len(self.data)
        return out

    def end(self):
        if self.i != len(self.data):
            raise Malformed(f"{len(self.data) - self.i} bytes left over")


def frame(frame_type: int, payload: bytes, flags: int = 0) -> bytes:
    return struct.pack("<IBB", len(payload), frame_type, flags) + payload


def parse_frame(data: bytes):
    length, frame_type, flags = struct.unpack("<IBB", data[:6])
    if len(data) != 6 + length:
        raise Malformed(f"frame header says {length} payload bytes, {len(data) - 6} present")
    return frame_type, flags, data[6:]
