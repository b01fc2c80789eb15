"""The run's content fetch checks (protocol.md section 8): whole, ranged, exact, past the end, at the
end, beyond the end and unknown blobs, on the live session."""

import hashlib

from .checking import check, log
from .messages import ERROR_CODES, T_CHUNK, T_FETCH, T_FETCH_ERROR, encode_payload


def check_fetches(ctx):
    """Seven fetches at once of the PNG the command line added; every answer checked."""
    session, cli, tag, png = ctx.session, ctx.cli, ctx.tag, ctx.png
    # 5. Content fetch (section 8).
    blob_hash = hashlib.sha256(png).digest()
    item = [i for gal in cli.json("list", "--json")["galleries"] for i in gal["items"] if i["hash"] == blob_hash.hex()]
    check(len(item) == 1 and item[0]["bytes"] == len(png), f"the added file is not listed with its hash and size: {item}")
    size = len(png)
    requests = {
        1: (0, 0),                  # whole, "length 0: to the end"
        2: (1000, 70000),           # a range spanning chunks
        3: (size - 100, 1000),      # offset + length past the blob's end
        4: (size, 0),               # the blob's end: one empty chunk
        5: (size + 1, 10),          # an offset past the end: protocol_error
        6: (0, 0),                  # an unknown hash: not_found
        7: (0, size),               # exactly the whole blob
    }
    unknown = hashlib.sha256(b"no such blob " + tag.encode()).digest()
    for request, (offset, length) in requests.items():
        session.conn.send(T_FETCH, {"request": request, "hash": unknown if request == 6 else blob_hash, "offset": offset, "length": length})
    results = {}

    def fetch_done():
        while session.fetch_answers:
            frame_type, m = session.fetch_answers.pop(0)
            request = m["request"]
            check(request in requests, f"an answer to unknown request {request}")
            entry = results.setdefault(request, {"data": bytearray(), "total": None, "error": None, "chunks": 0, "done": False})
            check(not entry["done"], f"request {request}: an answer after the fetch ended")
            if frame_type == T_FETCH_ERROR:
                entry["error"], entry["done"] = m, True
                continue
            offset, _ = requests[request]
            check(m["offset"] == offset + len(entry["data"]), f"request {request}: chunk at {m['offset']}, expected {offset + len(entry['data'])}")
            check(m["total"] == size, f"request {request}: total {m['total']}, the blob has {size}")
            check(len(encode_payload(T_CHUNK, m)) <= 65536, f"request {request}: a chunk over my max_frame")
            entry["data"] += m["data"]
            entry["chunks"] += 1
            entry["total"] = m["total"]
            start, length = requests[request]
            end = size if length == 0 else min(start + length, size)
            if start + len(entry["data"]) >= end:
                entry["done"] = True
        return len(results) == len(requests) and all(e["done"] for e in results.values())

    session.until(fetch_done, 15, "answers to every fetch")
    check(bytes(results[1]["data"]) == png and results[1]["chunks"] >= 2, f"whole fetch: {len(results[1]['data'])} bytes in {results[1]['chunks']} chunks")
    check(hashlib.sha256(results[1]["data"]).digest() == blob_hash, "whole fetch hash")
    check(bytes(results[2]["data"]) == png[1000:71000], "ranged fetch bytes")
    check(bytes(results[7]["data"]) == png, "fetch of exactly the whole blob")
    past = results[3]
    check(past["error"] is None and bytes(past["data"]) == png[size - 100:],
          f"fetch past the end: {past['error'] or str(len(past['data'])) + ' bytes'} (expected the bytes up to the end)")
    check(results[4]["error"] is None and results[4]["chunks"] == 1 and not results[4]["data"], f"fetch at the end: {results[4]}")
    check(results[5]["error"] and results[5]["error"]["code"] == ERROR_CODES["protocol_error"], f"fetch beyond the end: {results[5]}")
    check(results[6]["error"] and results[6]["error"]["code"] == ERROR_CODES["not_found"], f"fetch of an unknown hash: {results[6]}")
    log(f"fetch: whole ({results[1]['chunks']} chunks), ranged, exact, past the end (clamped: {len(past['data'])} bytes), "
        f"at the end (one empty chunk), beyond (protocol_error: {results[5]['error']['message']!r}), unknown (not_found)")
