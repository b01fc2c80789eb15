"""The independent GallerySync protocol version 4 client, written from protocol.md alone.

Standard library only, none of the package's Swift code. Tests/Conformance/independent_client.py is
its command line (selftest, run, explore). The modules, from the bottom up:

  checking      Mismatch, check() and log(): how every module reports.
  primitives    X25519 (RFC 7748), ChaCha20, Poly1305 and their AEAD (RFC 8439), HKDF (RFC 5869).
  noise         Noise_XXpsk3_25519_ChaChaPoly_SHA256, the record sealer, node IDs (section 4).
  frames        Varints, strings, the reader, the frame header (sections 1, 3).
  ops           Op encoding and decoding, op IDs (section 7).
  messages      Frame types, error codes and every frame's payload (sections 3 to 10).
  membership    The `membership` frame (0x41), member records, their signatures and who takes them (4.3).
  selftest      RFC vectors, then every golden frame of protocol.md section 16.
  connection    One TCP connection to a node: handshake, records, frames.
  model         The sequential replica model the run replays ops on, and an author of ops.
  node_cli      The node's command line (`gallery -C DIR ...`) and comparing its listing with the model.
  session       A live, authenticated connection that answers sync_request and collects ops.
  run           The run against a real node: setup, then these check groups in order:
    checks_sync         handshake, catch-up, pushed ops, live ops
    checks_fetch        blob fetches
    checks_frame_types  ignorable and unknown frame types, reserved flag bits
    checks_errors       ops out of bounds, a corrupted record, a wrong secret
  explore       Experiments on points protocol.md leaves open."""
