"""A live, authenticated session with a node: answers its sync_request from the model, replays the ops
it sends (each re-encoded byte for byte), collects fetch answers, and pushes this client's ops."""

import time

from .checking import Mismatch, check
from .ops import encode_op, op_id_text, op_size
from .messages import T_CAUGHT_UP, T_CHUNK, T_FETCH, T_FETCH_ERROR, T_IDENTITY, T_OPS, T_SYNC_REQUEST
from .membership import M_RECORDS, T_MEMBERSHIP
from .connection import Connection
from .signing import check_runs, space_id


class Session:
    """A live, authenticated connection: answers the node's sync_request, collects ops into the model."""

    def __init__(self, conn, model):
        self.conn, self.model = conn, model
        self.caught_up = None
        self.received = []
        self.fetch_answers = []
        self.seen_types = set()
        self.node_sync_requests = 0
        self.space = space_id(conn.secret)
        self.signatures_checked = 0
        self.member_records = []   # the records of the node's `membership` frames (section 4.3)

    @staticmethod
    def open(args, secret, model, replica, max_frame=65536, static=None, name=None):
        static = static or args.static
        name = name or args.name
        conn = Connection(args.host, args.port, secret, static=static, name=name, replica=replica, max_frame=max_frame).handshake()
        conn.await_identity()
        return Session(conn, model)

    def handle(self, frame_type, flags, m):
        self.seen_types.add(frame_type)
        if frame_type == T_SYNC_REQUEST:
            self.node_sync_requests += 1
            missing = [op for op in self.model.applied if op["counter"] + op_size(op) - 1 > m["vv"].get(op["replica"], 0)]
            for i in range(0, len(missing), 100):
                self.conn.send(T_OPS, {"ops": missing[i:i + 100]})
            self.conn.send(T_CAUGHT_UP, {"vv": self.model.vv})
        elif frame_type == T_OPS:
            # Section 7.3: one signature per replica and frame covers the node's ops.
            try:
                checked, _ = check_runs(self.space, m["ops"], self.model.applied)
            except ValueError as error:
                raise Mismatch(f"the node sent an op whose signature does not hold: {error}")
            self.signatures_checked += checked
            for op in m["ops"]:
                raw = op.pop("raw")
                check(encode_op(op) == raw, f"op {op_id_text(op['counter'], op['replica'])} from the node re-encodes differently:\n"
                      f"  received {raw.hex()}\n  mine     {encode_op(op).hex()}")
                op_id = (op["counter"], op["replica"])
                known = [o for o in self.model.applied if (o["counter"], o["replica"]) == op_id]
                if known:
                    check(encode_op(known[0], sealed=False) == encode_op(op, sealed=False), f"op {op_id_text(*op_id)} came back with other bytes")
                else:
                    self.model.apply(op)
                self.received.append(op)
        elif frame_type == T_CAUGHT_UP:
            self.caught_up = m["vv"]
        elif frame_type == T_MEMBERSHIP:
            check(flags == 1, f"a membership frame with flags {flags:#x}: it is ignorable")
            check(m["kind"] == M_RECORDS, f"membership kind {m['kind']} on a member's session")
            self.member_records += m["records"]
        elif frame_type == T_IDENTITY:
            raise Mismatch("a second identity from the node")
        elif frame_type in (T_CHUNK, T_FETCH_ERROR):
            self.fetch_answers.append((frame_type, m))
        elif frame_type == T_FETCH:
            self.conn.send(T_FETCH_ERROR, {"request": m["request"], "code": 12, "message": "this client holds no blobs"})

    def pump(self, timeout):
        frame_type, flags, m = self.conn.recv(timeout)
        self.handle(frame_type, flags, m)
        return frame_type

    def until(self, predicate, timeout, what):
        deadline = time.time() + timeout
        while not predicate():
            remaining = deadline - time.time()
            if remaining <= 0:
                raise Mismatch(f"timed out after {timeout} s waiting for {what}")
            try:
                self.pump(remaining)
            except TimeoutError:
                pass
        return predicate()

    def sync(self, timeout=10.0):
        """sync_request with the model's vector, then the node's answer up to caught_up."""
        self.caught_up = None
        self.conn.send(T_SYNC_REQUEST, {"vv": self.model.vv})
        self.until(lambda: self.caught_up is not None, timeout, "caught_up")
        return self.caught_up

    def push(self, ops, batch=True):
        for op in ops:
            self.model.apply(op)
        if batch:
            self.conn.send(T_OPS, {"ops": ops})
        else:
            for op in ops:
                self.conn.send(T_OPS, {"ops": [op]})
