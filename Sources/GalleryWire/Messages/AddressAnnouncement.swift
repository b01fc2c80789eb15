import GalleryModel

/// What an `addresses` frame carries (protocol.md, "Addresses"): where the sender listens, and
/// what it knows of other members of the space, each with how long ago it last saw them.
///
/// Sent right after the handshake and when the sender learns a member's new address. Every list
/// is bounded here, on both sides: a decoder refuses more than the limits.
package struct AddressAnnouncement: Hashable, Sendable {
    /// The most listen addresses one announcement carries.
    package static let maximumListen = 8
    /// The most members one announcement tells of.
    package static let maximumMembers = 32
    /// The most addresses told of one member.
    package static let maximumAddressesPerMember = 8
    /// The longest host name or address, in bytes.
    package static let maximumHostLength = 255
    /// The longest member ID or name, in bytes.
    package static let maximumIdentityLength = 255

    /// The addresses the sender listens on (a host of `0.0.0.0` or `::` means "the address you
    /// reach me at").
    package var listen: [WireAddress]
    /// Other members the sender knows.
    package var members: [Member]

    package init(listen: [WireAddress], members: [Member]) {
        self.listen = listen
        self.members = members
    }

    /// One member of the space as the sender knows it.
    package struct Member: Hashable, Sendable {
        /// The key the sender knows it by (today its node name).
        package var id: String
        /// Its node name.
        package var name: String
        /// Seconds since the sender last had it connected; 0 when it is connected now.
        package var age: UInt64
        /// Where it listens, as far as the sender knows.
        package var addresses: [WireAddress]

        package init(id: String, name: String, age: UInt64, addresses: [WireAddress]) {
            self.id = id
            self.name = name
            self.age = age
            self.addresses = addresses
        }
    }
}

/// A host and TCP port as the wire carries it: `host:string port:u16`.
package struct WireAddress: Hashable, Sendable {
    /// A host name or numeric address, without brackets.
    package var host: String
    package var port: UInt16

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
}

extension AddressAnnouncement {
    /// The payload: `listen_count:u8`, addresses; `member_count:u8`, then per member `id:string
    /// name:string age:varint address_count:u8` and its addresses.
    func write(into writer: inout ByteWriter) {
        let listen = listen.prefix(Self.maximumListen)
        writer.byte(UInt8(listen.count))
        for address in listen { address.write(into: &writer) }
        let members = members.prefix(Self.maximumMembers)
        writer.byte(UInt8(members.count))
        for member in members {
            writer.string(member.id)
            writer.string(member.name)
            writer.varint(member.age)
            let addresses = member.addresses.prefix(Self.maximumAddressesPerMember)
            writer.byte(UInt8(addresses.count))
            for address in addresses { address.write(into: &writer) }
        }
    }

    /// Reads a payload written by `write(into:)`, refusing counts and lengths over the limits.
    static func read(from reader: inout ByteReader) throws(DecodingError) -> AddressAnnouncement {
        let listen = try addresses(&reader, limit: maximumListen)
        let count = Int(try reader.byte())
        guard count <= maximumMembers else { throw .invalidValue("\(count) members (at most \(maximumMembers))") }
        var members: [Member] = []
        for _ in 0..<count {
            let id = try reader.string(limit: maximumIdentityLength)
            let name = try reader.string(limit: maximumIdentityLength)
            let age = try reader.varint()
            members.append(Member(id: id, name: name, age: age, addresses: try addresses(&reader, limit: maximumAddressesPerMember)))
        }
        return AddressAnnouncement(listen: listen, members: members)
    }

    private static func addresses(_ reader: inout ByteReader, limit: Int) throws(DecodingError) -> [WireAddress] {
        let count = Int(try reader.byte())
        guard count <= limit else { throw .invalidValue("\(count) addresses (at most \(limit))") }
        var addresses: [WireAddress] = []
        for _ in 0..<count {
            let host = try reader.string(limit: maximumHostLength)
            guard !host.isEmpty else { throw .invalidValue("empty host") }
            addresses.append(WireAddress(host: host, port: try reader.fixed16()))
        }
        return addresses
    }
}

extension WireAddress {
    func write(into writer: inout ByteWriter) {
        writer.string(host)
        writer.fixed16(port)
    }
}
