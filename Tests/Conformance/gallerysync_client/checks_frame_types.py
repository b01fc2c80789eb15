"""The run's frame type checks (protocol.md section 3): an unknown type with the ignorable flag is
skipped; without it, unknown_frame_type; a reserved flag bit, protocol_error."""

from .checking import check, log
from .messages import ERROR_CODES, T_HEARTBEAT
from .session import Session


def check_ignorable_frame(ctx):
    """On the live session, which then closes; the model's vector then is the run's final one."""
    session, model = ctx.session, ctx.model
    # 6. Ignorable and unknown frame types (section 3), on the live session.
    session.conn.send_frame(0x7E, b"skip me", flags=0x01)
    session.sync()
    log("frames: an unknown type with the ignorable flag is skipped")
    final_vv = dict(model.vv)
    session.conn.close()
    ctx.final_vv = final_vv


def check_refused_frames(ctx):
    """Each on a fresh session the node closes."""
    args, secret, model, mine = ctx.args, ctx.secret, ctx.model, ctx.mine
    # 7. An unknown frame type without the flag: unknown_frame_type, closed.
    s2 = Session.open(args, secret, model, mine)
    s2.conn.send_frame(0x7E, b"x")
    error = s2.conn.expect_close()
    check(error and error.code == ERROR_CODES["unknown_frame_type"], f"unknown frame type answered with {error}")
    # Reserved flag bits: a protocol error.
    s3 = Session.open(args, secret, model, mine)
    s3.conn.send_frame(T_HEARTBEAT, b"", flags=0x02)
    error = s3.conn.expect_close()
    check(error and error.code == ERROR_CODES["protocol_error"], f"a reserved flag bit answered with {error}")
    log("frames: unknown type -> unknown_frame_type, reserved flag bit -> protocol_error")
