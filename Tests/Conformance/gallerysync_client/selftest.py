"""The self test: RFC 7748/8439/5869/4231 vectors and varints, then every golden frame of protocol.md
section 16, decoded, compared with the prose's meaning and re-encoded byte for byte; the golden
handshake re-derived from its keys."""

import hashlib
import hmac
import re
import time

from .checking import Mismatch, check, log
from .primitives import (OpenFailed, aead_open, aead_seal, chacha20_block, chacha20_xor, hkdf_rfc5869, poly1305,
    space_psk, x25519, x25519_public)
from .noise import Handshake, RecordSealer, node_id
from .frames import Malformed, Reader, frame, parse_frame, varint, zigzag
from .ops import F_ASPECT, F_TITLE, K_CREATE, K_INSERT, K_MOVE, K_UPDATE, CompactTables, encode_op
from .signing import (L, chain, ed25519_public, ed25519_sign, ed25519_verify, genesis, message, replica_id, signing_seed,
    space_id)
from .membership import (M_RECORDS, R_ADDED, R_REVOKED, T_MEMBERSHIP, decode_membership, encode_membership,
    record_body, record_signature_holds, take_records)
from .messages import (T_ADDRESSES, T_CANCEL, T_CAUGHT_UP, T_CHUNK, T_ERROR, T_FETCH, T_FETCH_ERROR, T_GRAFT,
    T_FEATURES, T_HEARTBEAT, T_HELLO, T_IDENTITY, T_IHAVE, T_NOISE, T_OPS, T_OPS_COMPACT, T_PRUNE, T_RECORD,
    T_SYNC_REQUEST, T_TREE, T_IHAVE_TOTAL, decode_payload,
    encode_payload, hello_frame, prologue_for)


def rfc_vectors():
    h = bytes.fromhex
    # RFC 7748 section 5.2 and 6.1.
    check(x25519(h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
                 h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"))
          == h("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"), "RFC 7748 5.2 vector 1")
    alice = h("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    bob = h("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    check(x25519_public(alice) == h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"), "RFC 7748 6.1 alice")
    check(x25519_public(bob) == h("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"), "RFC 7748 6.1 bob")
    shared = h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    check(x25519(alice, x25519_public(bob)) == shared and x25519(bob, x25519_public(alice)) == shared, "RFC 7748 6.1 shared")
    # RFC 7748 5.2: one iteration of the repeated ladder.
    k = u = (9).to_bytes(32, "little")
    for i in range(1000):
        k, u = x25519(k, u), k
        if i == 0:
            check(k == h("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"), "RFC 7748 5.2 iterated x1")
    check(k == h("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"), "RFC 7748 5.2 iterated x1000")
    # RFC 8439 2.3.2: the block function.
    key = bytes(range(32))
    block = chacha20_block(key, 1, h("000000090000004a00000000"))
    check(block == h("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                     "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"), "RFC 8439 2.3.2 block")
    # RFC 8439 2.4.2: encryption.
    sunscreen = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
                 b"sunscreen would be it.")
    ct = chacha20_xor(key, 1, h("000000000000004a00000000"), sunscreen)
    check(ct[:16] == h("6e2e359a2568f98041ba0728dd0d6981") and ct[-2:] == h("874d"), "RFC 8439 2.4.2 encryption")
    # RFC 8439 2.5.2: Poly1305.
    check(poly1305(h("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b"),
                   b"Cryptographic Forum Research Group") == h("a8061dc1305136c6c22b8baf0c0127a9"), "RFC 8439 2.5.2 Poly1305")
    # RFC 8439 2.8.2: AEAD.
    aead_key = bytes(range(0x80, 0xA0))
    nonce = h("070000004041424344454647")
    ad = h("50515253c0c1c2c3c4c5c6c7")
    sealed = aead_seal(aead_key, nonce, sunscreen, ad)
    check(sealed[:16] == h("d31a8d34648e60db7b86afbc53ef7ec2") and sealed[-16:] == h("1ae10b594f09e26a7e902ecbd0600691"),
          "RFC 8439 2.8.2 AEAD")
    check(aead_open(aead_key, nonce, sealed, ad) == sunscreen, "RFC 8439 2.8.2 AEAD open")
    tampered = bytearray(sealed)
    tampered[5] ^= 1
    try:
        aead_open(aead_key, nonce, bytes(tampered), ad)
        raise Mismatch("a tampered AEAD ciphertext opened")
    except OpenFailed:
        pass
    # RFC 5869 A.1 and A.3.
    check(hkdf_rfc5869(b"\x0b" * 22, h("000102030405060708090a0b0c"), h("f0f1f2f3f4f5f6f7f8f9"), 42)
          == h("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"), "RFC 5869 A.1")
    check(hkdf_rfc5869(b"\x0b" * 22, b"", b"", 42)
          == h("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"), "RFC 5869 A.3")
    # RFC 4231 test case 2 (HMAC-SHA256, from hmac and hashlib).
    check(hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha256).digest()
          == h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "RFC 4231 case 2")
    # Varints: shortest form only.
    for value, encoded in [(0, "00"), (127, "7f"), (128, "8001"), (300, "ac02"), (262144, "808010"), (2**64 - 1, "ffffffffffffffffff01")]:
        check(varint(value) == h(encoded) and Reader(h(encoded)).varint() == value, f"varint {value}")
    for bad in ["8000", "ffffffffffffffffff02", "8080808080808080808001"]:
        try:
            Reader(h(bad)).varint()
            raise Mismatch(f"varint {bad} accepted")
        except Malformed:
            pass
    for value, encoded in [(0, 0), (-1, 1), (1, 2), (-2, 3)]:
        check(zigzag(value) == varint(encoded) and Reader(zigzag(value)).zigzag() == value, f"zigzag {value}")


def golden_frames(protocol_path):
    text = open(protocol_path, encoding="utf-8").read()
    blocks = re.findall(r"<!-- golden: (\w+) -->\s*```\s*\n(.*?)```", text, re.S)
    return {name: bytes.fromhex(" ".join(body.split())) for name, body in blocks}


ALICE, BOB = 0x0102030405060708, 0x1112131415161718


def golden_selftest(protocol_path):
    golden = golden_frames(protocol_path)
    expected_names = {"hello", "noise1", "noise2", "noise3", "recordAlice", "recordBob", "identity", "syncRequest",
                      "ops", "caughtUp", "ihave", "graft", "prune", "heartbeat", "error", "fetch", "chunk",
                      "fetchError", "cancel", "addresses", "opsCompact", "opsCompactNext", "features", "tree",
                      "ihaveTotal", "opsSigned"}
    check(expected_names <= set(golden), f"protocol.md lacks golden frames {sorted(expected_names - set(golden))}")

    def key(label):
        return hashlib.sha256(label.encode()).digest()

    a_s, a_e = key("GallerySync golden initiator static"), key("GallerySync golden initiator ephemeral")
    b_s, b_e = key("GallerySync golden responder static"), key("GallerySync golden responder ephemeral")
    check(x25519_public(a_s).hex() == "8d188e2ab3b902aab4d212cc0df93af9ac12e5e74237994623c908c1b831784f", "alice static public")
    check(x25519_public(a_e).hex() == "936b3fa880395d40e81aa0dc24225bfb65908c98802d63ecf36c8aa4308bc735", "alice ephemeral public")
    check(x25519_public(b_s).hex() == "a8f7bbf0be1c430f38d6851238c765840e81282c8fc1551657131c5da56e0c03", "bob static public")
    check(x25519_public(b_e).hex() == "ebc47784a7a6481ae41bfa1e7e865fd07062eca0fa9bb3fe0172c0e0ebf44455", "bob ephemeral public")
    check(node_id(x25519_public(a_s)) == "x36zqpdofdwg4t2w", f"alice's node ID {node_id(x25519_public(a_s))}")
    check(node_id(x25519_public(b_s)) == "meki6r2ngbfah7yq", f"bob's node ID {node_id(x25519_public(b_s))}")

    psk = space_psk(b"example secret")
    hello = hello_frame()
    check(hello == golden["hello"], "golden hello: my encoding differs")
    check(len(hello) == 58, "hello is not 58 bytes")
    t, f, p = parse_frame(golden["hello"])
    check(t == T_HELLO and f == 0 and decode_payload(t, p)["versions"] == [4], "golden hello decodes")
    prologue = prologue_for(hello)
    alice = Handshake(True, a_s, psk, prologue, a_e)
    bob = Handshake(False, b_s, psk, prologue, b_e)
    m1 = frame(T_NOISE, alice.write_message1())
    check(m1 == golden["noise1"], "golden noise1 (-> e) differs")
    bob.read_message1(parse_frame(golden["noise1"])[2])
    m2 = frame(T_NOISE, bob.write_message2())
    check(m2 == golden["noise2"], "golden noise2 (<- e, ee, s, es) differs")
    alice.read_message2(parse_frame(golden["noise2"])[2])
    check(alice.rs == x25519_public(b_s), "message 2 carries bob's static key")
    m3 = frame(T_NOISE, alice.write_message3())
    check(m3 == golden["noise3"], "golden noise3 (-> s, se, psk) differs")
    bob.read_message3(parse_frame(golden["noise3"])[2])
    check(bob.rs == x25519_public(a_s), "message 3 carries alice's static key")
    check(alice.ss.h.hex() == "0368e0d00d8c22d8bcd52128e2106aa7115ace41b0a12038cc051dd65ba6673e", "golden handshake hash")
    check(bob.ss.h == alice.ss.h, "both sides' handshake hashes")
    alice_send, alice_recv = alice.keys()
    bob_send, bob_recv = bob.keys()
    check(alice_send == bob_recv and bob_send == alice_recv, "split keys pair up")
    alice_identity = frame(T_IDENTITY, encode_payload(T_IDENTITY, {"version": 4, "replica": ALICE, "max_frame": 4194304, "name": "alice"}))
    bob_identity = frame(T_IDENTITY, encode_payload(T_IDENTITY, {"version": 4, "replica": BOB, "max_frame": 4194304, "name": "bob"}))
    check(frame(T_RECORD, RecordSealer(alice_send).seal(alice_identity)) == golden["recordAlice"], "golden recordAlice differs")
    check(frame(T_RECORD, RecordSealer(bob_send).seal(bob_identity)) == golden["recordBob"], "golden recordBob differs")
    check(RecordSealer(bob_recv).open(parse_frame(golden["recordAlice"])[2]) == alice_identity, "recordAlice opens to alice's identity")
    check(RecordSealer(alice_recv).open(parse_frame(golden["recordBob"])[2]) == bob_identity, "recordBob opens to bob's identity")
    # A wrong secret fails message 3 at the responder.
    wrong_bob = Handshake(False, b_s, space_psk(b"another secret"), prologue, b_e)
    wrong_bob.read_message1(parse_frame(golden["noise1"])[2])
    check(frame(T_NOISE, wrong_bob.write_message2()) == golden["noise2"], "message 2 does not depend on the secret")
    try:
        wrong_bob.read_message3(parse_frame(golden["noise3"])[2])
        raise Mismatch("message 3 opened under another secret")
    except OpenFailed:
        pass

    ops = [
        {"kind": K_CREATE, "counter": 1, "replica": ALICE, "gap": 1, "name": "alice"},
        {"kind": K_INSERT, "counter": 2, "replica": ALICE, "gap": 1, "gallery": "alice", "after": None, "before": None,
         "drafts": [{"placeholder": False, "fields": [(F_TITLE, "venice.png"), (F_ASPECT, 1.5)]}]},
        {"kind": K_MOVE, "counter": 3, "replica": ALICE, "gap": 1, "item": (2, ALICE), "gallery": "alice",
         "after": None, "before": None},
    ]
    semantic = {
        "identity": (T_IDENTITY, 0, {"version": 4, "replica": ALICE, "max_frame": 4194304, "name": "alice"}),
        "syncRequest": (T_SYNC_REQUEST, 0, {"vv": {ALICE: 3, BOB: 300}}),
        "ops": (T_OPS, 0, {"ops": ops}),
        "opsCompact": (T_OPS_COMPACT, 0, {"ops": ops}),
        "features": (T_FEATURES, 1, {"bits": 1}),
        "caughtUp": (T_CAUGHT_UP, 0, {"vv": {ALICE: 3}}),
        "ihave": (T_IHAVE, 1, {"vv": {ALICE: 3}}),
        "graft": (T_GRAFT, 1, {"vv": {ALICE: 3, BOB: 300}, "origins": [BOB]}),
        "prune": (T_PRUNE, 1, {"origins": [BOB]}),
        "tree": (T_TREE, 1, {"root": ALICE, "since": 1_700_000_000_000, "round": 1_700_000_010_000, "hops": 2,
                             "parent": BOB}),
        "ihaveTotal": (T_IHAVE_TOTAL, 1, {"total": 303}),
        "heartbeat": (T_HEARTBEAT, 0, {}),
        "error": (T_ERROR, 0, {"code": 3, "message": "wrong secret"}),
        "fetch": (T_FETCH, 0, {"request": 7, "hash": hashlib.sha256(b"abc").digest(), "offset": 0, "length": 262144}),
        "chunk": (T_CHUNK, 0, {"request": 7, "offset": 0, "total": 3, "data": b"abc"}),
        "fetchError": (T_FETCH_ERROR, 0, {"request": 7, "code": 12, "message": "no such blob here"}),
        "cancel": (T_CANCEL, 0, {"request": 7}),
        "addresses": (T_ADDRESSES, 1, {"listen": [("127.0.0.1", 7001)], "members": [
            {"id": "carol", "name": "carol", "age": 42, "addresses": [("10.0.0.3", 7003)]}]}),
    }
    for name, (frame_type, flags, meaning) in semantic.items():
        t, f, payload = parse_frame(golden[name])
        check((t, f) == (frame_type, flags), f"golden {name}: type/flags {t:#x}/{f:#x}, expected {frame_type:#x}/{flags:#x}")
        decoded = decode_payload(t, payload)
        if t == T_OPS:
            for op in decoded["ops"]:
                op.pop("raw")
        check(decoded == meaning, f"golden {name} decodes to {decoded}, expected {meaning}")
        check(frame(frame_type, encode_payload(frame_type, meaning), flags) == golden[name], f"golden {name}: re-encoding differs")
    compact_next(golden, ops)
    return len(golden)


def compact_next(golden, first_ops):
    """The second `ops_compact` example: read with the tables the first left, written with the
    sender's; alone (fresh tables) it is malformed (section 7.2)."""
    next_ops = [
        {"kind": K_UPDATE, "counter": 4, "replica": BOB, "gap": 4, "item": (2, ALICE), "field": F_TITLE, "value": "rialto.png"},
        {"kind": K_MOVE, "counter": 5, "replica": BOB, "gap": 1, "item": (2, ALICE), "gallery": "alice",
         "after": None, "before": None},
    ]
    sender, receiver = CompactTables(), CompactTables()
    check(frame(T_OPS_COMPACT, encode_payload(T_OPS_COMPACT, {"ops": first_ops}, sender)) == golden["opsCompact"],
          "golden opsCompact: encoding with the sender's tables differs")
    check(frame(T_OPS_COMPACT, encode_payload(T_OPS_COMPACT, {"ops": next_ops}, sender)) == golden["opsCompactNext"],
          "golden opsCompactNext: encoding with the tables the first frame left differs")
    check(decode_payload(T_OPS_COMPACT, parse_frame(golden["opsCompact"])[2], receiver) == {"ops": first_ops},
          "golden opsCompact decodes")
    t, f, payload = parse_frame(golden["opsCompactNext"])
    check((t, f) == (T_OPS_COMPACT, 0), f"golden opsCompactNext: type/flags {t:#x}/{f:#x}")
    check(decode_payload(T_OPS_COMPACT, payload, receiver) == {"ops": next_ops}, "golden opsCompactNext decodes")
    check((receiver.replicas, receiver.galleries) == ([ALICE, BOB], ["alice"]), "tables after the two examples")
    try:
        decode_payload(T_OPS_COMPACT, payload)
        raise Mismatch("golden opsCompactNext decoded without the first frame's tables")
    except Malformed:
        pass


def ed25519_vectors():
    """RFC 8032 section 7.1, tests 1 and 2; a flipped bit and S + L refused."""
    h = bytes.fromhex
    seed = h("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    public = h("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = h("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    check(ed25519_public(seed) == public and ed25519_sign(seed, b"") == signature, "RFC 8032 7.1 test 1")
    check(ed25519_verify(public, b"", signature), "RFC 8032 7.1 test 1 verifies")
    seed2 = h("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
    public2 = h("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
    signature2 = h("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")
    check(ed25519_public(seed2) == public2 and ed25519_sign(seed2, b"\x72") == signature2, "RFC 8032 7.1 test 2")
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    check(not ed25519_verify(public, b"", flipped), "a flipped bit of R is refused")
    s_plus_l = signature[:32] + (int.from_bytes(signature[32:], "little") + L).to_bytes(32, "little")
    check(not ed25519_verify(public, b"", s_plus_l), "S + L is refused")


def golden_signed(protocol_path):
    """The opsSigned example: alice's signing key from her golden static key, her bound replica, and both
    signatures checked over the chain; each op re-encodes byte for byte."""
    golden = golden_frames(protocol_path)
    secret = b"example secret"
    static = hashlib.sha256(b"GallerySync golden initiator static").digest()
    seed = signing_seed(static)
    public = ed25519_public(seed)
    space = space_id(secret)
    replica = replica_id(space, public, 1)
    t, f, payload = parse_frame(golden["opsSigned"])
    check((t, f) == (T_OPS, 0), "golden opsSigned is an ops frame")
    ops = decode_payload(T_OPS, payload)["ops"]
    check([o["kind"] for o in ops] == [K_CREATE, K_INSERT] and all(o["replica"] == replica for o in ops),
          f"golden opsSigned: alice's two ops under {replica:016x}")
    check(ops[0]["seal"].get("key") == public and ops[0]["seal"].get("salt") == 1, "golden opsSigned claims alice's key, salt 1")
    h = genesis(space, replica, public)
    for op in ops:
        h = chain(h, encode_op(op, sealed=False))
        check(ed25519_verify(public, message(replica, op["counter"], h), op["seal"]["sig"]), f"golden opsSigned: op {op['counter']} verifies")
    check(frame(T_OPS, encode_payload(T_OPS, {"ops": ops})) == golden["opsSigned"], "golden opsSigned re-encodes")


def golden_membership(protocol_path):
    """The membershipRecords example (section 4.3): alice's record of herself and her revocation of bob,
    rebuilt from the document's keys, signed here, byte for byte; both signatures hold, a changed byte
    breaks one, and the records taken leave alice the only member."""
    golden = golden_frames(protocol_path)
    check("membershipRecords" in golden, "protocol.md lacks golden frame membershipRecords")
    t, f, payload = parse_frame(golden["membershipRecords"])
    check((t, f) == (T_MEMBERSHIP, 1), f"golden membershipRecords: type/flags {t:#x}/{f:#x}, expected 0x41/0x1")
    decoded = decode_membership(payload)
    a_static = hashlib.sha256(b"GallerySync golden initiator static").digest()
    b_static = hashlib.sha256(b"GallerySync golden responder static").digest()
    a_seed, b_seed = signing_seed(a_static), signing_seed(b_static)
    a_key, b_key = ed25519_public(a_seed), ed25519_public(b_seed)
    space = space_id(b"example secret")
    cutoffs = sorted([(replica_id(space, b_key, 1), 7), (replica_id(space, b_key, 2), 300)])
    expected = [
        {"kind": R_ADDED, "node_key": x25519_public(a_static), "signing_key": a_key, "name": "alice",
         "at": 1_700_000_000_000, "signer": a_key},
        {"kind": R_REVOKED, "node_key": x25519_public(b_static), "signing_key": b_key, "name": "bob",
         "at": 1_700_000_600_000, "signer": a_key, "cutoffs": cutoffs},
    ]
    check(decoded["kind"] == M_RECORDS and len(decoded["records"]) == 2, f"golden membershipRecords: {decoded}")
    for got, want in zip(decoded["records"], expected):
        check({k: v for k, v in got.items() if k != "signature"} == want, f"golden membershipRecords decodes to {got}")
        check(record_signature_holds(got), f"golden membershipRecords: the {got['name']} record's signature holds")
        check(got["signature"] == ed25519_sign(a_seed, b"GallerySync member v4" + record_body(want)),
              f"golden membershipRecords: the {got['name']} record signed here alike")
    check(frame(T_MEMBERSHIP, encode_membership(decoded), 1) == golden["membershipRecords"], "golden membershipRecords re-encodes")
    taken, members = take_records(list(reversed(decoded["records"])))
    check(len(taken) == 2 and members == {a_key}, "the records taken in either order leave alice the only member")
    changed = dict(decoded["records"][1], cutoffs=[cutoffs[0], (cutoffs[1][0], 8)])
    check(not record_signature_holds(changed), "a changed cut-off breaks the revocation's signature")
    swapped = dict(decoded["records"][1], cutoffs=list(reversed(cutoffs)))
    check(not record_signature_holds(swapped), "cut-offs in another order break the signature")


def selftest(protocol_path):
    started = time.time()
    rfc_vectors()
    ed25519_vectors()
    count = golden_selftest(protocol_path)
    golden_signed(protocol_path)
    golden_membership(protocol_path)
    log(f"selftest: RFC 7748/8439/5869/4231 vectors and {count} golden frames of protocol.md section 16 pass "
        f"({time.time() - started:.2f} s)")
