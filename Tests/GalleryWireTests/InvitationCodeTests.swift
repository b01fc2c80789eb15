import GalleryCrypto
import GalleryModel
import GalleryWire
import Testing

/// Invitation codes (protocol.md, "Invitations"): base64url, the binary layout, and a clean
/// error for every damaged code; the join handshake under an invitation's PSK.
@Suite("invitation codes")
struct InvitationCodeTests {
    private func code(addresses: [WireAddress] = [WireAddress(host: "127.0.0.1", port: 4_001)]) -> InvitationCode {
        InvitationCode(secret: Array(1...16), inviterKey: Array(repeating: 0x42, count: 32), space: Array(100..<116),
                       expires: 1_800_000_000, addresses: addresses)
    }

    @Test("Base64url without padding: RFC 4648's vectors, the URL alphabet, and no second spelling")
    func base64url() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("Zh") == nil, "nonzero bits left over: a second spelling of Zg")
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64URL.decode("Z") == nil)
        #expect(Base64URL.decode("Zm9v+") == nil)
    }

    @Test("A code round-trips through its text; its layout is the documented one")
    func roundTrip() throws {
        let original = code(addresses: [WireAddress(host: "127.0.0.1", port: 4_001), WireAddress(host: "example.org", port: 443)])
        let text = original.text
        #expect(text.hasPrefix("gsj1-"))
        #expect(try InvitationCode(text: "  \(text)\n") == original)
        let bytes = original.bytes
        #expect(bytes.count == 1 + 16 + 32 + 16 + 4 + 1 + (1 + 9 + 2) + (1 + 11 + 2) + 4)
        #expect(bytes[0] == 1 && Array(bytes[1...16]) == Array(1...16))
        #expect(CRC32.checksum(Array(bytes.dropLast(4))) == UInt32(bytes[bytes.count - 4]) | UInt32(bytes[bytes.count - 3]) << 8
            | UInt32(bytes[bytes.count - 2]) << 16 | UInt32(bytes[bytes.count - 1]) << 24)
        // One IPv4 address: 120 characters, one line.
        #expect(code().text.count == 120)
    }

    @Test("Every code changed in one character, cut, or with a byte flipped is refused with an error, never taken")
    func mutatedCodes() throws {
        let text = code().text
        let characters = Array(text)
        var refused = 0
        for index in characters.indices {
            for replacement in ["A", "z", "0", "-", "_", "=", "!"] where Character(replacement) != characters[index] {
                var mutated = characters
                mutated[index] = Character(replacement)
                #expect(throws: InvitationCodeError.self) { try InvitationCode(text: String(mutated)) }
                refused += 1
            }
        }
        for length in 0..<characters.count {
            #expect(throws: InvitationCodeError.self) { try InvitationCode(text: String(characters.prefix(length))) }
        }
        let bytes = code().bytes
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(throws: InvitationCodeError.self) { try InvitationCode(bytes: flipped) }
            }
        }
        #expect(refused > 700)
        #expect(throws: InvitationCodeError.notACode("it does not start with gsj1-")) { try InvitationCode(text: "hello") }
    }

    @Test("Format 2, or no address, with a valid checksum is refused as such")
    func unknownFormat() throws {
        var bytes = code().bytes.dropLast(4).map { $0 }
        bytes[0] = 2
        let crc = CRC32.checksum(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
        #expect(throws: InvitationCodeError.unsupported(2)) { try InvitationCode(bytes: bytes) }
        let none = code(addresses: [])
        #expect(throws: InvitationCodeError.self) { try InvitationCode(bytes: none.bytes) }
    }

    /// The server of a handshake that accepts the space's key and one invitation's.
    private final class Keys: HandshakeKeyring {
        let space: [UInt8]
        let invitation: [UInt8]
        init(space: [UInt8], invitation: [UInt8]) {
            self.space = space
            self.invitation = invitation
        }
        var dialingKey: [UInt8] { HandshakeSettings.presharedKey(secret: space) }
        var acceptedKeys: [(HandshakeAuthority, [UInt8])] {
            [(.space, HandshakeSettings.presharedKey(secret: space)), (.invitation("i1"), InvitationCode.presharedKey(secret: invitation))]
        }
    }

    /// The client's PSK only.
    private final class Dialing: HandshakeKeyring {
        let dialingKey: [UInt8]
        init(_ key: [UInt8]) { dialingKey = key }
        var acceptedKeys: [(HandshakeAuthority, [UInt8])] { [] }
    }

    private func handshake(clientKey: [UInt8]) throws -> Result<HandshakeResult, HandshakeFailure> {
        var serverSettings = HandshakeSettings(secret: Array("space".utf8), staticKey: X25519.PrivateKey(), replica: ReplicaID(1), name: "server")
        serverSettings.keyring = Keys(space: Array("space".utf8), invitation: Array(repeating: 7, count: 16))
        var clientSettings = HandshakeSettings(secret: [0], staticKey: X25519.PrivateKey(), replica: ReplicaID(2), name: "client")
        clientSettings.keyring = Dialing(clientKey)
        var client = ClientHandshake(settings: clientSettings)
        var server = ServerHandshake(settings: serverSettings)
        let first = try client.start()
        _ = try server.receive(first[0])
        guard case .send(let second) = try server.receive(first[1]) else { throw HandshakeFailure(.internalError, "no message 2") }
        guard case .finish(let third, _) = try client.receive(second) else { throw HandshakeFailure(.internalError, "no message 3") }
        do {
            guard case .finish(let result) = try server.receive(third) else { return .failure(HandshakeFailure(.internalError, "not finished")) }
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    @Test("The server tells which key message 3 proved: the space's, an invitation's; another is refused")
    func authorities() throws {
        #expect(try handshake(clientKey: HandshakeSettings.presharedKey(secret: Array("space".utf8))).get().authority == .space)
        #expect(try handshake(clientKey: InvitationCode.presharedKey(secret: Array(repeating: 7, count: 16))).get().authority == .invitation("i1"))
        let wrong = try handshake(clientKey: InvitationCode.presharedKey(secret: Array(repeating: 8, count: 16)))
        guard case .failure(let failure) = wrong else {
            Issue.record("a wrong invitation key was accepted")
            return
        }
        #expect(failure.code == .authFailed)
    }
}
