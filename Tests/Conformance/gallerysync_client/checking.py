"""How the client reports: Mismatch (a check failed), check() and log()."""


class Mismatch(Exception):
    """A check failed: the node (or the spec's own example) does not do what protocol.md says."""


def check(condition, message):
    if not condition:
        raise Mismatch(message)


def log(message):
    print(message, flush=True)
