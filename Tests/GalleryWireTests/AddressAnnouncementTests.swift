@testable import GalleryWire
import Testing

/// The `addresses` frame (protocol.md, "Addresses"): its coding, its ignorable flag, and the
/// bounds a decoder enforces on what a hostile peer sends.
@Suite("addresses frames")
struct AddressAnnouncementTests {
    static func member(_ index: Int, addresses: Int = 1) -> AddressAnnouncement.Member {
        AddressAnnouncement.Member(
            id: "node\(index)", name: "node\(index)", age: UInt64(index),
            addresses: (0..<addresses).map { WireAddress(host: "10.0.0.\($0)", port: UInt16(7000 + index)) })
    }

    @Test("an announcement at its limits survives a round trip, in a frame with the ignorable flag")
    func roundTrip() throws {
        let announcement = AddressAnnouncement(
            listen: (0..<AddressAnnouncement.maximumListen).map { WireAddress(host: "::\($0)", port: UInt16($0)) },
            members: (0..<AddressAnnouncement.maximumMembers).map {
                Self.member($0, addresses: AddressAnnouncement.maximumAddressesPerMember)
            })
        let frame = Message.addresses(announcement).frame
        #expect(frame.type == 0x40)
        #expect(frame.flags == Frame.ignorableFlag)
        #expect(try Message(frame: frame) == .addresses(announcement))
        #expect(try Message(frame: Message.addresses(AddressAnnouncement(listen: [], members: [])).frame)
            == .addresses(AddressAnnouncement(listen: [], members: [])))
    }

    @Test("the encoder sends no more than the limits, whatever it is given")
    func encoderClamps() throws {
        let announcement = AddressAnnouncement(
            listen: (0..<20).map { WireAddress(host: "h\($0)", port: 1) },
            members: (0..<50).map { Self.member($0, addresses: 20) })
        guard case .addresses(let decoded) = try Message(frame: Message.addresses(announcement).frame) else {
            Issue.record("not an addresses message")
            return
        }
        #expect(decoded.listen.count == AddressAnnouncement.maximumListen)
        #expect(decoded.members.count == AddressAnnouncement.maximumMembers)
        #expect(decoded.members.allSatisfy { $0.addresses.count == AddressAnnouncement.maximumAddressesPerMember })
    }

    /// Payloads over the bounds, written by hand as a hostile peer would.
    static let hostile: [(String, [UInt8])] = {
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        let address = string("h") + [1, 0]
        return [
            ("9 listen addresses", [9] + Array([[UInt8]](repeating: address, count: 9).joined()) + [0]),
            ("33 members", [0, 33] + Array([[UInt8]](repeating: string("m") + string("m") + [0, 0], count: 33).joined())),
            ("9 addresses of a member", [0, 1] + string("m") + string("m") + [0, 9]
                + Array([[UInt8]](repeating: address, count: 9).joined())),
            ("an empty host", [1] + string("") + [1, 0, 0]),
            ("a host of 256 bytes", [1, 0x80, 0x02] + [UInt8](repeating: 0x61, count: 256) + [1, 0, 0]),
            ("a cut payload", [1] + string("host")),
            ("bytes after the message", [0, 0, 0]),
        ]
    }()

    @Test("a payload over the bounds, cut or with bytes left over is refused as malformed")
    func hostilePayloads() {
        for (name, payload) in Self.hostile {
            #expect(throws: WireError.self, "\(name)") {
                try Message(frame: Frame(.addresses, flags: Frame.ignorableFlag, payload: payload))
            }
        }
    }
}
